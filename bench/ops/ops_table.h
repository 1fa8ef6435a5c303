// The ops bench/ops times: a name (shared with numpy_peer.py, which times NumPy's equivalent)
// and the graph that computes it from the bench's inputs.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "tensord/client.h"

namespace tensord::bench {

// Inputs, all materialized on the daemon: float32 (1000, 1000) unless said.
struct OpInputs {
  Tensor x;        // uniform in [-4, 4)
  Tensor y;        // uniform in [-4, 4)
  Tensor pos;      // uniform in [0.5, 4.5)
  Tensor unit;     // uniform in [-0.9, 0.9)
  Tensor prob;     // uniform in [0.01, 0.99)
  Tensor ints;     // int32, in [-1000, 1000)
  Tensor shifts;   // int32, in [0, 8)
  Tensor classes;  // int64 (1000,), in [0, 1000)
  Tensor weight;   // (1000,) for prelu
};

struct OpCase {
  std::string name;
  std::function<Tensor(const OpInputs&)> build;
};

std::vector<OpCase> op_cases();

}  // namespace tensord::bench
