// Row kernels for elementwise ops: what a StridedLoop calls for each row. The 16-bit floats
// are converted a block at a time to float32, computed, and rounded on store; other types get
// a tight loop when the row is contiguous (or broadcasts a scalar) that the compiler
// vectorizes, and a strided loop otherwise.
#pragma once

#include <algorithm>
#include <cstdint>

#include "engine/backends/cpu/convert.h"
#include "engine/backends/cpu/dispatch.h"
#include "engine/backends/cpu/parallel.h"
#include "engine/backends/cpu/strided_iter.h"

namespace tensord::cpu {

template <typename T>
inline T& at(char* p, int64_t stride, int64_t i) {
  return *reinterpret_cast<T*>(p + i * stride);
}
template <typename T>
inline const T& at(const char* p, int64_t stride, int64_t i) {
  return *reinterpret_cast<const T*>(p + i * stride);
}

// Functors that also compute whole blocks at once (vector math): f.block(x, y, n).
template <typename F, typename C>
concept BlockOp = requires(const F& f, const C* x, C* y, int64_t n) {
  f.block(x, y, n);
};

// Two-input functors that also compute whole blocks at once: f.block(a, b, out, n).
template <typename F, typename C>
concept BinaryBlockOp = requires(const F& f, const C* a, const C* b, C* out, int64_t n) {
  f.block(a, b, out, n);
};

// ptrs[0] = f(ptrs[1]); f maps ComputeT<In> to ComputeT<Out>.
template <typename In, typename Out, typename F>
inline void unary_row(char* const* p, const int64_t* s, int64_t n, F f) {
  char* out = p[0];
  const char* in = p[1];
  if constexpr (std::is_same_v<In, Out> && BlockOp<F, ComputeT<In>>) {
    if constexpr (!kIsHalf<In>) {
      if (s[0] == sizeof(Out) && s[1] == sizeof(In)) {
        return f.block(reinterpret_cast<const In*>(in), reinterpret_cast<Out*>(out), n);
      }
    }
    ComputeT<In> x[kBlock], y[kBlock];
    for (int64_t i = 0; i < n; i += kBlock) {
      int64_t m = std::min(kBlock, n - i);
      load_block<In>(in + i * s[1], s[1], x, m);
      f.block(x, y, m);
      store_block<Out>(y, out + i * s[0], s[0], m);
    }
  } else if constexpr (kIsHalf<In> || kIsHalf<Out>) {
    ComputeT<In> x[kBlock];
    ComputeT<Out> y[kBlock];
    for (int64_t i = 0; i < n; i += kBlock) {
      int64_t m = std::min(kBlock, n - i);
      load_block<In>(in + i * s[1], s[1], x, m);
      for (int64_t k = 0; k < m; ++k) y[k] = f(x[k]);
      store_block<Out>(y, out + i * s[0], s[0], m);
    }
  } else if (s[0] == sizeof(Out) && s[1] == sizeof(In)) {
    Out* __restrict o = reinterpret_cast<Out*>(out);
    const In* __restrict a = reinterpret_cast<const In*>(in);
    for (int64_t k = 0; k < n; ++k) o[k] = f(a[k]);
  } else {
    for (int64_t k = 0; k < n; ++k) at<Out>(out, s[0], k) = f(at<In>(in, s[1], k));
  }
}

// ptrs[0] = f(ptrs[1], ptrs[2]); both inputs are In.
template <typename In, typename Out, typename F>
inline void binary_row(char* const* p, const int64_t* s, int64_t n, F f) {
  char* out = p[0];
  const char* a = p[1];
  const char* b = p[2];
  if constexpr (std::is_same_v<In, Out> && BinaryBlockOp<F, ComputeT<In>>) {
    // Vector math: contiguous rows directly, others (and 16-bit floats) a block at a time.
    if constexpr (!kIsHalf<In>) {
      if (s[0] == sizeof(Out) && s[1] == sizeof(In) && s[2] == sizeof(In)) {
        return f.block(reinterpret_cast<const In*>(a), reinterpret_cast<const In*>(b),
                       reinterpret_cast<Out*>(out), n);
      }
    }
    ComputeT<In> x[kBlock], y[kBlock], z[kBlock];
    for (int64_t i = 0; i < n; i += kBlock) {
      int64_t m = std::min(kBlock, n - i);
      load_block<In>(a + i * s[1], s[1], x, m);
      load_block<In>(b + i * s[2], s[2], y, m);
      f.block(x, y, z, m);
      store_block<Out>(z, out + i * s[0], s[0], m);
    }
  } else if constexpr (kIsHalf<In> || kIsHalf<Out>) {
    ComputeT<In> x[kBlock], y[kBlock];
    ComputeT<Out> z[kBlock];
    for (int64_t i = 0; i < n; i += kBlock) {
      int64_t m = std::min(kBlock, n - i);
      load_block<In>(a + i * s[1], s[1], x, m);
      load_block<In>(b + i * s[2], s[2], y, m);
      for (int64_t k = 0; k < m; ++k) z[k] = f(x[k], y[k]);
      store_block<Out>(z, out + i * s[0], s[0], m);
    }
  } else if (s[0] == sizeof(Out)) {
    Out* __restrict o = reinterpret_cast<Out*>(out);
    const In* __restrict x = reinterpret_cast<const In*>(a);
    const In* __restrict y = reinterpret_cast<const In*>(b);
    if (s[1] == sizeof(In) && s[2] == sizeof(In)) {
      for (int64_t k = 0; k < n; ++k) o[k] = f(x[k], y[k]);
    } else if (s[1] == 0 && s[2] == sizeof(In)) {
      const In xv = *x;
      for (int64_t k = 0; k < n; ++k) o[k] = f(xv, y[k]);
    } else if (s[1] == sizeof(In) && s[2] == 0) {
      const In yv = *y;
      for (int64_t k = 0; k < n; ++k) o[k] = f(x[k], yv);
    } else {
      for (int64_t k = 0; k < n; ++k) o[k] = f(at<In>(a, s[1], k), at<In>(b, s[2], k));
    }
  } else {
    for (int64_t k = 0; k < n; ++k) {
      at<Out>(out, s[0], k) = f(at<In>(a, s[1], k), at<In>(b, s[2], k));
    }
  }
}

// Runs the whole loop, in parallel over contiguous chunks of elements when it is big.
inline void for_each(const StridedLoop& loop, int threads, StridedLoop::Row row) {
  parallel_for(loop.numel(), kParallelGrain, threads,
               [&](int64_t begin, int64_t end) { loop.run(begin, end, row); });
}

// Runs a row kernel over `operands` (output first) in the output's shape.
inline void launch(int threads, std::span<const Operand> operands, StridedLoop::Row row) {
  StridedLoop loop(operands[0].dims(), operands);
  for_each(loop, threads, row);
}

}  // namespace tensord::cpu
