// Issue 4: the conformance rows of complex dtypes and FFT (cases_complex.cpp) run on their own
// runner (complex_runner.h) against their own reference (reference_complex.h); the main table's
// coverage checks leave the ops they cover to it.
#pragma once

#include <vector>

#include "engine/ir/op.h"

namespace tensord::conformance {

std::vector<ir::Op> complex_table_ops();

}  // namespace tensord::conformance
