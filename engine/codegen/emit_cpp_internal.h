// Pieces of the C++ emitter shared by its files.
#pragma once

#include <string_view>

namespace tensord::codegen {

std::string_view cpp_prelude();

}  // namespace tensord::codegen
