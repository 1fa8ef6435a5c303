// How both code generators (C++ and CUDA C) move a value between its storage and its compute
// type: 16-bit floats are stored as bits (td_h2f/td_f2h, td_b2f/td_f2b in each target's
// prelude, with the same rounding), bools as bytes. Results of 16-bit dtypes are rounded to
// them after every op (td_rh/td_rb), as the eager kernels do.
#pragma once

#include <string>

#include "engine/ir/dtype.h"

namespace tensord::codegen {

inline std::string from_storage(ir::DType t, const std::string& x) {
  if (t == ir::DType::Float16) return "td_h2f(" + x + ")";
  if (t == ir::DType::BFloat16) return "td_b2f(" + x + ")";
  if (t == ir::DType::Bool) return "(" + x + " != 0)";
  return x;
}

inline std::string to_storage(ir::DType t, const std::string& x) {
  if (t == ir::DType::Float16) return "td_f2h(" + x + ")";
  if (t == ir::DType::BFloat16) return "td_f2b(" + x + ")";
  if (t == ir::DType::Bool) return "(unsigned char)(" + x + ")";
  return x;
}

// The identity of max (`lowest`) or min (the highest value) of an integer dtype, as a literal
// both targets read alike; "" for other dtypes.
inline std::string integer_extreme(ir::DType t, bool lowest) {
  switch (t) {
    case ir::DType::Int8:
      return lowest ? "(signed char)-128" : "(signed char)127";
    case ir::DType::UInt8:
      return lowest ? "(unsigned char)0" : "(unsigned char)255";
    case ir::DType::Int16:
      return lowest ? "(short)-32768" : "(short)32767";
    case ir::DType::Int32:
      return lowest ? "(-2147483647 - 1)" : "2147483647";
    case ir::DType::Int64:
      return lowest ? "(-9223372036854775807LL - 1)" : "9223372036854775807LL";
    default:
      return "";
  }
}

inline std::string rounded(ir::DType t, const std::string& x) {
  if (t == ir::DType::Float16) return "td_rh(" + x + ")";
  if (t == ir::DType::BFloat16) return "td_rb(" + x + ")";
  return x;
}

}  // namespace tensord::codegen
