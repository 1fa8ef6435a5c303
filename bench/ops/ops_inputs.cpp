// The inputs of bench/ops, computed on the daemon once before any op is timed. numpy_peer.py
// builds the same shapes and value ranges (from NumPy's generator, so not the same values).
#include "bench/ops/ops_table.h"

namespace tensord::bench {

OpInputs make_inputs(Session& s) {
  using ir::DType;
  uint64_t seed = 0;
  auto uniform = [&](const ir::Shape& shape, float lo, float hi) {
    return s.rand(shape, ++seed) * (hi - lo) + lo;
  };
  auto integers = [&](const ir::Shape& shape, float lo, float hi, DType dtype) {
    return cast(floor(uniform(shape, lo, hi)), dtype);
  };
  const ir::Shape square{1000, 1000};
  OpInputs in;
  in.session = &s;
  in.x = uniform(square, -4, 4);
  in.y = uniform(square, -4, 4);
  in.pos = uniform(square, 0.5f, 4.5f);
  in.unit = uniform(square, -0.9f, 0.9f);
  in.prob = uniform(square, 0.01f, 0.99f);
  in.ints = integers(square, -1000, 1000, DType::Int32);
  in.shifts = integers(square, 0, 8, DType::Int32);
  in.classes = integers({1000}, 0, 1000, DType::Int64);
  in.weight = uniform({1000}, 0, 0.5f);
  in.mask = in.x > 0.0f;
  in.index = integers(square, 0, 1000, DType::Int64);
  in.flat_index = integers({1000000}, 0, 1000000, DType::Int64);
  in.edges = sort(uniform({1000}, -4, 4)).values;
  in.counts = integers({1000}, 0, 3, DType::Int64);
  in.col = uniform({1000, 1}, -4, 4);
  const ir::Shape matrix{1024, 1024};
  in.a = uniform(matrix, -1, 1);
  in.b = uniform(matrix, -1, 1);
  in.spd = matmul(in.a, transpose(in.a, 0, 1)) / 1024.0f + s.eye(1024);
  in.v3a = uniform({333334, 3}, -1, 1);
  in.v3b = uniform({333334, 3}, -1, 1);
  in.x100 = uniform({100, 1000}, -4, 4);
  in.signal = uniform({1 << 20}, -1, 1);
  in.spectrum = fft::fft(in.signal);
  in.rspectrum = fft::rfft(in.signal);
  in.spectrum2 = fft::fft2(in.a);
  in.image = uniform({16, 16, 64, 64}, -1, 1);
  in.kernel2 = uniform({16, 16, 3, 3}, -0.1f, 0.1f);
  in.seq = uniform({16, 16, 4096}, -1, 1);
  in.kernel1 = uniform({16, 16, 3}, -0.1f, 0.1f);
  in.volume = uniform({4, 16, 16, 32, 32}, -1, 1);
  in.kernel3 = uniform({16, 16, 3, 3, 3}, -0.1f, 0.1f);
  in.channel = uniform({16}, 0.5f, 1.5f);
  in.shuffled = uniform({16, 64, 32, 32}, -1, 1);
  in.q = uniform({8, 1024, 128}, -1, 1);
  in.k = uniform({8, 1024, 128}, -1, 1);
  in.v = uniform({8, 1024, 128}, -1, 1);
  in.z = complex(uniform(square, -1, 1), uniform(square, -1, 1));
  in.w = complex(uniform(square, -1, 1), uniform(square, -1, 1));
  s.sync({in.x,         in.y,       in.pos,      in.unit,   in.prob,     in.ints,
          in.shifts,    in.classes, in.weight,   in.mask,   in.index,    in.flat_index,
          in.edges,     in.counts,  in.col,      in.a,      in.b,        in.spd,
          in.v3a,       in.v3b,     in.x100,     in.signal, in.spectrum, in.rspectrum,
          in.spectrum2, in.image,   in.kernel2,  in.seq,    in.kernel1,  in.volume,
          in.kernel3,   in.channel, in.shuffled, in.q,      in.k,        in.v,
          in.z,         in.w});
  return in;
}

}  // namespace tensord::bench
