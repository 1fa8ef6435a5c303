// The launch-bound workloads of bench/rpc (on the CPU) and bench/fusion (the GPU half's, and
// the CPU half's warm start), in one place so all time the same graphs
// (bench/fusion/torch_gpu_peer.py is their PyTorch twin).
#pragma once

#include <vector>

#include "tensord/client.h"

namespace tensord::bench {

inline constexpr int kReplaySegments = 200;
inline constexpr int kMlpLayers = 8, kMlpBatch = 8, kMlpWidth = 256;

// `segments` segments of five elementwise ops each (picked by the bits of the segment's
// number), every segment after the first starting from (y.T + y) / 2: reading y twice, once
// through a view, keeps y whole (a fusion boundary), so the plan has one kernel per segment.
// (A transpose alone is no boundary: views fuse into their consumers' loads.)
inline Tensor replay_ops(Tensor y, int segments = kReplaySegments) {
  for (int i = 1; i <= segments; ++i) {
    if (i > 1) y = (tensord::transpose(y, 0, 1) + y) * 0.5f;
    y = (i & 1) ? tensord::tanh(y) : -y;
    y = (i & 2) ? tensord::sin(y) : y * 0.5f;
    y = (i & 4) ? tensord::cos(y) : y + 1.0f;
    y = (i & 8) ? tensord::sigmoid(y) : y * y;
    y = (i & 16) ? tensord::abs(y) : y - 0.25f;
  }
  return y;
}

// The forward of kMlpLayers linear layers (relu between): h = x, then linear(h, w[i], b[i]).
inline Tensor mlp_forward(const Tensor& x, const std::vector<Tensor>& w,
                          const std::vector<Tensor>& bias) {
  Tensor h = x;
  for (size_t i = 0; i < w.size(); ++i) {
    h = tensord::linear(h, w[i], bias[i]);
    if (i + 1 < w.size()) h = tensord::relu(h);
  }
  return h;
}

}  // namespace tensord::bench
