// The 16-bit float conversions of every CUDA C unit tensord compiles (the loop-IR emitter's
// structure and formulas, and the movement, sort, NN, solver and FFT families' sources): one
// text at the start of each unit (once: it has no include guard, as the sort family's host
// emulation compiles several units into one file, each in its own namespace), instead of a copy
// per prelude.
#pragma once

#include <string_view>

namespace tensord::codegen {

// td_h2f/td_f2h (float16) and td_b2f/td_f2b (bfloat16) between float and the bits (unsigned
// short), and td_rh/td_rb (a float rounded to float16/bfloat16). Bit for bit engine/ir/half.h:
// round to nearest even, NaN kept quiet with its sign. Needs only __uint_as_float,
// __float_as_uint and __fadd_rn, so the host-emulation shims (tests/unit/cuda) compile it as C++.
std::string_view cuda_half_prelude();

}  // namespace tensord::codegen
