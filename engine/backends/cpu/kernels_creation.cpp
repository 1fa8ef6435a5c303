// Creation ops: full, arange, eye, rand, randn.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "engine/backends/cpu/kernels.h"
#include "engine/backends/cpu/kernels_complex.h"
#include "engine/backends/cpu/parallel.h"
#include "engine/backends/cpu/philox_block.h"
#include "engine/backends/cpu/scalar_cast.h"
#include "engine/backends/cpu/vector_math.h"
#include "engine/ir/philox.h"

namespace tensord::cpu {
namespace {

using ir::Attr;
using ir::Op;

template <typename T>
void fill(const KernelContext& ctx, T* out, int64_t n, T value) {
  parallel_for(n, kParallelGrain, ctx.threads,
               [&](int64_t begin, int64_t end) { std::fill(out + begin, out + end, value); });
}

template <typename T>
void arange(const KernelContext& ctx, const ir::Attrs& attrs, T* out, int64_t n) {
  double start = attrs.get_float(Attr::start), step = attrs.get_float(Attr::step);
  if (step == 0) throw Error(ErrorCode::Shape, "arange step must not be zero");
  parallel_for(n, kParallelGrain, ctx.threads, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      out[i] = cast_scalar<T>(start + static_cast<double>(i) * step);
    }
  });
}

template <typename T>
void eye(const ir::Attrs& attrs, const TensorValue& out) {
  int64_t rows = out.type.shape.at(0), cols = out.type.shape.at(1);
  int64_t k = attrs.get_int(Attr::k, 0);
  T* p = out.data<T>();
  std::memset(static_cast<void*>(p), 0, out.nbytes());
  if (k >= cols || k <= -rows) return;  // no diagonal inside (and no overflow below)
  for (int64_t i = std::max<int64_t>(0, -k); i < rows && i + k < cols; ++i) {
    p[i * cols + i + k] = cast_scalar<T>(true);
  }
}

// The largest value of T below 1: what a uniform sample that rounds up to 1.0 becomes.
template <typename T>
float below_one() {
  if constexpr (std::is_same_v<T, Float16>)
    return 1.0f - 0x1p-11f;
  else if constexpr (std::is_same_v<T, BFloat16>)
    return 1.0f - 0x1p-8f;
  else
    return std::nextafter(1.0f, 0.0f);
}

// Box-Muller as ir::philox_normal with log and cos through libmvec a block at a time, for the
// dtypes below float64: with a libm call per element randn of 1M float32 took 36.5 ms (NumPy
// 9.5). libmvec is a few ulp from libm in float64, which rounding to float32 (or 16 bits) does
// not show. float64 randn keeps libm: 57% of its samples differed in their last bits from the
// CUDA kernel's (correctly rounded log and cos) through libmvec, against under 0.5% with libm
// (tests/unit/cuda/movement_emulated_test.cpp).
void normal_block(const PhiloxBlock& w, double* z) {
  double log_u1[kPhiloxLanes], cos_angle[kPhiloxLanes];
  for (int i = 0; i < kPhiloxLanes; ++i) {
    double u2;
    ir::philox_normal_uniforms(w.lane(i), &log_u1[i], &u2);
    cos_angle[i] = 6.283185307179586 * u2;
  }
  vmath::log(log_u1, log_u1, kPhiloxLanes);
  vmath::cos(cos_angle, cos_angle, kPhiloxLanes);
  for (int i = 0; i < kPhiloxLanes; ++i) z[i] = std::sqrt(-2.0 * log_u1[i]) * cos_angle[i];
}

template <typename T>
void random(const KernelContext& ctx, Op op, uint64_t seed, T* out, int64_t n) {
  // Ten Philox rounds per element: worth threads at a smaller size than a plain copy.
  parallel_for(n, kParallelGrain / 8, ctx.threads, [&](int64_t begin, int64_t end) {
    PhiloxBlock w;
    double z[kPhiloxLanes];
    for (int64_t i = begin; i < end; i += kPhiloxLanes) {
      const int m = static_cast<int>(std::min<int64_t>(kPhiloxLanes, end - i));
      philox_block(seed, static_cast<uint64_t>(i), w);
      if (op == Op::randn) {
        if constexpr (std::is_same_v<T, double>) {
          for (int j = 0; j < m; ++j) out[i + j] = ir::philox_normal(w.lane(j));
        } else {
          normal_block(w, z);
          for (int j = 0; j < m; ++j) out[i + j] = cast_scalar<T>(z[j]);
        }
        continue;
      }
      for (int j = 0; j < m; ++j) {
        const ir::Philox4x32 e = w.lane(j);
        if constexpr (std::is_same_v<T, double>) {
          out[i + j] = ir::philox_uniform53(e);
        } else {
          T u = T(ir::philox_uniform24(e));
          out[i + j] = static_cast<float>(u) < 1.0f ? u : T(below_one<T>());
        }
      }
    }
  });
}

}  // namespace

void run_creation(const KernelContext& ctx, const ir::Node& node, const TensorValue& out) {
  if (ir::is_complex(out.type.dtype)) return run_complex(ctx, node, {}, out);  // issue 4
  int64_t n = out.type.numel();
  visit_dtype(out.type.dtype, [&]<typename T>(TypeTag<T>) {
    T* p = out.data<T>();
    switch (node.op) {
      case Op::full: {
        const ir::AttrValue* value = node.attrs.find(Attr::value);
        if (value == nullptr) throw Error(ErrorCode::InvalidGraph, "full needs a value");
        return fill(ctx, p, n, cast_attr<T>(*value));
      }
      case Op::arange:
        return arange(ctx, node.attrs, p, n);
      case Op::eye:
        return eye<T>(node.attrs, out);
      case Op::rand:
      case Op::randn:
        if constexpr (kIsFloat<T>) {
          auto seed = static_cast<uint64_t>(node.attrs.get_int(Attr::seed));
          return random(ctx, node.op, seed, p, n);
        } else {
          throw Error(ErrorCode::DType, std::string(ir::name(node.op)) +
                                            " needs a float dtype, not " +
                                            std::string(ir::name(out.type.dtype)));
        }
      default:
        throw_unsupported(node.op, out.type.dtype);
    }
  });
}

}  // namespace tensord::cpu
