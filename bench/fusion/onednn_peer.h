// The peer of the cpu_linear_bias_gelu figures: oneDNN called directly, in this process, with
// the same post-ops the CPU backend uses for gelu(linear(x, w, b)) (a primitive bias, then
// eltwise_gelu_erf), on the same float32 shapes.
#pragma once

#include <cstdint>

namespace tensord::bench {

// Median seconds of one gelu(x @ w^T + b) with x [m, k], w [n, k], b [n].
double onednn_linear_bias_gelu_seconds(int64_t m, int64_t k, int64_t n);

}  // namespace tensord::bench
