// PyTorch's torch.set_float32_matmul_precision, as a setting a session gives its backend:
// "highest" computes float32 matmuls in float32, "high" may use TF32, "medium" may use bfloat16.
// Backends that always compute in full float32 (the CPU's) ignore it.
#pragma once

#include <optional>
#include <string_view>

namespace tensord::engine {

enum class Float32MatmulPrecision { Highest, High, Medium };

inline std::optional<Float32MatmulPrecision> float32_matmul_precision_from_name(
    std::string_view name) {
  if (name == "highest") return Float32MatmulPrecision::Highest;
  if (name == "high") return Float32MatmulPrecision::High;
  if (name == "medium") return Float32MatmulPrecision::Medium;
  return std::nullopt;
}

inline std::string_view name(Float32MatmulPrecision p) {
  switch (p) {
    case Float32MatmulPrecision::Highest:
      return "highest";
    case Float32MatmulPrecision::High:
      return "high";
    case Float32MatmulPrecision::Medium:
      return "medium";
  }
  return "highest";
}

}  // namespace tensord::engine
