// The ops bench/ops times: a name (shared with numpy_peer.py and its peers_*.py, which time
// NumPy's or SciPy's equivalent), the input shape where it is not the default (1000, 1000),
// and the graph that computes it from the bench's inputs. One table per op family
// (ops_table_*.cpp); op_cases() lists them all.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "tensord/client.h"

namespace tensord::bench {

// Inputs, all materialized on the daemon: float32 (1000, 1000) unless said.
struct OpInputs {
  Session* session = nullptr;  // for creation ops (fftfreq)
  Tensor x;                    // uniform in [-4, 4)
  Tensor y;                    // uniform in [-4, 4)
  Tensor pos;                  // uniform in [0.5, 4.5)
  Tensor unit;                 // uniform in [-0.9, 0.9)
  Tensor prob;                 // uniform in [0.01, 0.99)
  Tensor ints;                 // int32, in [-1000, 1000)
  Tensor shifts;               // int32, in [0, 8)
  Tensor classes;              // int64 (1000,), in [0, 1000)
  Tensor weight;               // (1000,) in [0, 0.5), for prelu
  // Shape and indexing.
  Tensor mask;        // bool, x > 0
  Tensor index;       // int64, in [0, 1000) (gather/scatter along rows)
  Tensor flat_index;  // int64 (1000000,), in [0, 1000000) (take)
  Tensor edges;       // (1000,) sorted, in [-4, 4) (searchsorted, bucketize)
  Tensor counts;      // int64 (1000,), in [0, 3) (repeat_interleave with a tensor)
  Tensor col;         // (1000, 1), uniform in [-4, 4) (broadcast_tensors)
  // Linear algebra: (1024, 1024) float32.
  Tensor a;    // uniform in [-1, 1)
  Tensor b;    // uniform in [-1, 1)
  Tensor spd;  // a a^T / 1024 + I, symmetric positive-definite
  Tensor v3a;  // (333334, 3) uniform in [-1, 1) (cross)
  Tensor v3b;
  Tensor x100;  // (100, 1000) uniform in [-4, 4) (cdist's second operand)
  // FFT: 2^20 elements.
  Tensor signal;     // float32 (1048576,) uniform in [-1, 1)
  Tensor spectrum;   // complex64 (1048576,) = fft(signal)
  Tensor rspectrum;  // complex64 (524289,) = rfft(signal)
  Tensor spectrum2;  // complex64 (1024, 1024) = fft2(a)
  // Neural-network ops: about 1M elements each.
  Tensor image;     // (16, 16, 64, 64) uniform in [-1, 1)
  Tensor kernel2;   // (16, 16, 3, 3) uniform in [-0.1, 0.1)
  Tensor seq;       // (16, 16, 4096) (conv1d, pool1d)
  Tensor kernel1;   // (16, 16, 3)
  Tensor volume;    // (4, 16, 16, 32, 32) (conv3d)
  Tensor kernel3;   // (16, 16, 3, 3, 3)
  Tensor channel;   // (16,) uniform in [0.5, 1.5) (norm weights, variances)
  Tensor shuffled;  // (16, 64, 32, 32) (pixel_shuffle by 2)
  Tensor q, k, v;   // (8, 1024, 128) uniform in [-1, 1) (attention)
  // Complex: complex64 (1000, 1000), both parts uniform in [-1, 1).
  Tensor z, w;
};

// What one op returns: its tensors are synced together (several for split, sort, qr, ...).
struct Results {
  std::vector<Tensor> tensors;
  Results(Tensor t) : tensors{std::move(t)} {}                 // NOLINT: implicit on purpose
  Results(std::vector<Tensor> ts) : tensors(std::move(ts)) {}  // NOLINT
  Results(ValuesIndices vi) : tensors{std::move(vi.values), std::move(vi.indices)} {}  // NOLINT
};

struct OpCase {
  std::string name;
  std::string shape;  // the input's shape where it is not (1000, 1000), for the JSON line
  std::function<Results(const OpInputs&)> build;
};

OpInputs make_inputs(Session& s);

std::vector<OpCase> math_cases();       // elementwise math and activations
std::vector<OpCase> special_cases();    // torch.special
std::vector<OpCase> reduction_cases();  // reductions, scans, sorting and losses
std::vector<OpCase> shape_cases();      // shape and indexing
std::vector<OpCase> linalg_cases();     // linear algebra and FFT
std::vector<OpCase> nn_cases();         // neural-network ops
std::vector<OpCase> complex_cases();    // complex64 functions, arithmetic and reductions

std::vector<OpCase> op_cases();

}  // namespace tensord::bench
