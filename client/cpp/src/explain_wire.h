// The protocol's Explanation as the client's (tensord::explain, Function::explain).
#pragma once

#include "client/cpp/src/wire.h"
#include "tensord/explain.h"

namespace tensord::detail {

Explanation explanation_from_wire(::Explanation::Reader e);

}  // namespace tensord::detail
