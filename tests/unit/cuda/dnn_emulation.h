// The neural-network family's CUDA kernels on the host (dnn_emulation_test.cpp,
// dnn_pool_emulation_test.cpp): the CUDA C text the kernel cache compiles (dnn_dump_kernels
// writes it, without `extern "C"`) compiled as C++ with the CUDA built-ins shimmed for one thread
// (a grid-stride loop then covers everything; block barriers become no-ops), and the helpers that
// compare a kernel's output with the CPU backend's.
#pragma once

#include <math.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <iomanip>
#include <random>
#include <string>
#include <vector>

// CUDA built-ins for one host thread.
struct EmuDim3 {
  unsigned x = 0, y = 0, z = 0;
};
inline EmuDim3 blockIdx{0, 0, 0}, threadIdx{0, 0, 0}, blockDim{1, 1, 1}, gridDim{1, 1, 1};
// inline: the kernels are defined in every test file that includes this header.
#define __global__ inline
#define __device__ inline
#define __forceinline__
inline void __syncthreads() {}
inline double __longlong_as_double(long long v) {
  double d;
  std::memcpy(&d, &v, 8);
  return d;
}
inline float __uint_as_float(unsigned v) {
  float d;
  std::memcpy(&d, &v, 4);
  return d;
}
inline unsigned __float_as_uint(float v) {
  unsigned d;
  std::memcpy(&d, &v, 4);
  return d;
}
// volatile: one rounding per operation, no contraction into a multiply-add.
inline float __fadd_rn(float a, float b) {
  volatile float r = a + b;
  return r;
}
inline float __fmul_rn(float a, float b) {
  volatile float r = a * b;
  return r;
}
inline float __fdiv_rn(float a, float b) {
  volatile float r = a / b;
  return r;
}
inline double __dadd_rn(double a, double b) {
  volatile double r = a + b;
  return r;
}
inline double __dmul_rn(double a, double b) {
  volatile double r = a * b;
  return r;
}
inline double __ddiv_rn(double a, double b) {
  volatile double r = a / b;
  return r;
}
using std::max;
using std::min;

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wpedantic"
namespace emu_f32 {
#include "dnn_float32.inc"
}
#undef TD_DTYPE
#undef TD_LOOP
namespace emu_f64 {
#include "dnn_float64.inc"
}
#undef TD_DTYPE
#undef TD_LOOP
namespace emu_f16 {
#include "dnn_float16.inc"
}
#undef TD_DTYPE
#undef TD_LOOP
namespace emu_bf16 {
#include "dnn_bfloat16.inc"
}
#undef TD_DTYPE
#undef TD_LOOP
namespace emu_copy {
#include "dnn_copy.inc"
}
#undef TD_LOOP
#pragma GCC diagnostic pop

#include "engine/backends/cpu/cpu_backend.h"
#include "engine/backends/cuda/dnn_geometry.h"
#include "engine/backends/cuda/dnn_kernels.h"
#include "engine/ir/graph.h"
#include "engine/ir/half.h"

namespace tensord::cuda::dnn::test {

using ir::Attr;
using ir::Attrs;
using ir::DType;
using ir::Op;
using I = std::vector<int64_t>;

// A host argument struct as its device twin (same 64-bit fields).
template <typename Device, typename Host>
Device bits(const Host& h) {
  static_assert(sizeof(Device) == sizeof(Host));
  Device d;
  std::memcpy(&d, &h, sizeof d);
  return d;
}

// One dtype's kernels, with the host argument structs (same layout as the device ones).
struct Kernels {
  void (*pool)(const void*, void*, long long*, const PoolArgs&);
  void (*interpolate)(const void*, void*, const InterpolateArgs&);
  void (*conv)(const void*, const void*, const void*, void*, const ConvArgs&);
  void (*ctc_alpha)(const void*, const long long*, double*, double*, const CtcArgs&);
  void (*ctc_reduce)(const double*, const long long*, void*, long long, long long);
};

#define TD_KERNELS(ns)                                                                          \
  Kernels {                                                                                     \
    [](const void* x, void* y, long long* indices, const PoolArgs& a) {                         \
      ns::dnn_pool(static_cast<const ns::st_t*>(x), static_cast<ns::st_t*>(y), indices,         \
                   bits<ns::PoolArgs>(a));                                                      \
    },                                                                                          \
        [](const void* x, void* y, const InterpolateArgs& a) {                                  \
          ns::dnn_interpolate(static_cast<const ns::st_t*>(x), static_cast<ns::st_t*>(y),       \
                              bits<ns::InterpolateArgs>(a));                                    \
        },                                                                                      \
        [](const void* x, const void* w, const void* b, void* y, const ConvArgs& a) {           \
          ns::dnn_conv_direct(static_cast<const ns::st_t*>(x), static_cast<const ns::st_t*>(w), \
                              static_cast<const ns::st_t*>(b), static_cast<ns::st_t*>(y),       \
                              bits<ns::ConvArgs>(a));                                           \
        },                                                                                      \
        [](const void* lp, const long long* ints, double* work, double* losses,                 \
           const CtcArgs& a) {                                                                  \
          ns::dnn_ctc_alpha(static_cast<const ns::st_t*>(lp), ints, work, losses,               \
                            bits<ns::CtcArgs>(a));                                              \
        },                                                                                      \
        [](const double* losses, const long long* tl, void* y, long long n, long long r) {      \
          ns::dnn_ctc_reduce(losses, tl, static_cast<ns::st_t*>(y), n, r);                      \
        },                                                                                      \
  }

inline Kernels kernels(DType t) {
  switch (t) {
    case DType::Float32:
      return TD_KERNELS(emu_f32);
    case DType::Float64:
      return TD_KERNELS(emu_f64);
    case DType::Float16:
      return TD_KERNELS(emu_f16);
    default:
      return TD_KERNELS(emu_bf16);
  }
}

inline constexpr DType kDTypes[] = {DType::Float32, DType::Float64, DType::Float16,
                                    DType::BFloat16};

inline std::vector<char> encode(const std::vector<double>& v, DType t) {
  const size_t item = ir::itemsize(t);
  std::vector<char> b(v.size() * item);
  for (size_t i = 0; i < v.size(); ++i) {
    if (t == DType::Float32) {
      const auto f = static_cast<float>(v[i]);
      std::memcpy(&b[i * item], &f, item);
    } else if (t == DType::Float64) {
      std::memcpy(&b[i * item], &v[i], item);
    } else if (t == DType::Int64) {
      const auto k = static_cast<int64_t>(v[i]);
      std::memcpy(&b[i * item], &k, item);
    } else {
      const uint16_t h = t == DType::Float16 ? ir::Float16::from_float(static_cast<float>(v[i]))
                                             : ir::BFloat16::from_float(static_cast<float>(v[i]));
      std::memcpy(&b[i * item], &h, item);
    }
  }
  return b;
}

inline double decode(const char* p, DType t) {
  if (t == DType::Float32) {
    float f;
    std::memcpy(&f, p, 4);
    return f;
  }
  if (t == DType::Float64) {
    double d;
    std::memcpy(&d, p, 8);
    return d;
  }
  uint16_t h;
  std::memcpy(&h, p, 2);
  return t == DType::Float16 ? ir::Float16::to_float(h) : ir::BFloat16::to_float(h);
}

// One unit in the last place of the dtype, relative.
inline double ulp(DType t) {
  return t == DType::Float64   ? 0x1p-52
         : t == DType::Float32 ? 0x1p-23
         : t == DType::Float16 ? 0x1p-10
                               : 0x1p-7;
}

inline std::vector<double> random_values(int64_t n, uint32_t seed, bool specials = false) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> d(-2, 2);
  std::vector<double> v(static_cast<size_t>(n));
  for (double& x : v) x = d(rng);
  if (specials && n > 5) {
    v[1] = NAN;
    v[3] = INFINITY;
    v[4] = -INFINITY;
  }
  return v;
}

struct Input {
  DType dtype;
  I shape;
  I strides;                   // empty: contiguous
  std::vector<double> values;  // the buffer's elements
};

// Runs `op` on the CPU backend and `emulated(inputs, output type, output bytes)`, and compares.
template <typename Emulated>
void compare_with_cpu(Op op, const std::vector<Input>& inputs, const Attrs& attrs, double tol,
                      Emulated&& emulated) {
  cpu::CpuBackend cpu(1);
  ir::Graph g;
  std::vector<ir::ValueRef> refs;
  std::vector<engine::TensorValue> values;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const ir::TensorType type{inputs[i].dtype, inputs[i].shape};
    refs.push_back(g.add_input(static_cast<uint32_t>(i), type));
    const std::vector<char> bytes = encode(inputs[i].values, inputs[i].dtype);
    auto buffer = cpu.allocate(std::max<size_t>(bytes.size(), 1));
    if (!bytes.empty()) cpu.write(*buffer, 0, bytes.data(), bytes.size());
    engine::TensorValue v = engine::TensorValue::contiguous(buffer, type);
    if (!inputs[i].strides.empty()) v.strides = inputs[i].strides;
    values.push_back(v);
  }
  const ir::ValueRef y = g.add(op, refs, attrs);
  const ir::Node& node = g.nodes[y.node];
  const ir::TensorType out_type = node.outputs[0];
  auto out_buffer = cpu.allocate(std::max<size_t>(out_type.nbytes(), 1));
  const engine::TensorValue out = engine::TensorValue::contiguous(out_buffer, out_type);
  cpu.run(node, values, std::span<const engine::TensorValue>(&out, 1));
  std::vector<char> want(out_type.nbytes()), got(out_type.nbytes());
  if (!want.empty()) cpu.read(*out_buffer, 0, want.data(), want.size());
  emulated(values, out_type, got.data());
  const size_t item = ir::itemsize(out_type.dtype);
  int bad = 0;
  for (size_t i = 0; i < want.size() / item; ++i) {
    const double a = decode(&want[i * item], out_type.dtype);
    const double b = decode(&got[i * item], out_type.dtype);
    const bool same =
        (std::isnan(a) && std::isnan(b)) || a == b || std::fabs(a - b) <= tol * (1 + std::fabs(a));
    if (!same && bad++ < 3) {
      UNSCOPED_INFO("element " << i << ": cpu " << std::setprecision(17) << a << ", kernel " << b);
    }
  }
  CHECK(bad == 0);
}

}  // namespace tensord::cuda::dnn::test
