// cast between any two dtypes, and plain copies between layouts.
#include <algorithm>
#include <cstring>

#include "engine/backends/cpu/elementwise.h"
#include "engine/backends/cpu/host_buffer.h"
#include "engine/backends/cpu/kernels.h"
#include "engine/backends/cpu/kernels_complex.h"
#include "engine/backends/cpu/scalar_cast.h"

namespace tensord::cpu {
namespace {

// Maps a compute value of From to a compute value of To such that storing it as To applies
// the cast rules exactly once (no double rounding into the 16-bit floats).
template <typename From, typename To>
struct CastOp {
  ComputeT<To> operator()(ComputeT<From> x) const {
    if constexpr (kIsHalf<To>) {
      if constexpr (std::is_same_v<ComputeT<From>, float>) {
        return x;  // the store rounds float -> half once
      } else {
        return round_to_odd_float(static_cast<double>(x));
      }
    } else {
      return cast_scalar<To>(x);
    }
  }
};

constexpr int64_t kTile = 32;

// dst[i, j] = src[i * si + j * sj] for a rows x cols tile origin; dst rows are `ld` apart.
template <typename U>
void copy_tile(const char* src, int64_t si, int64_t sj, char* dst, int64_t ld, int64_t rows,
               int64_t cols) {
  const U* s = reinterpret_cast<const U*>(src);
  U* d = reinterpret_cast<U*>(dst);
  for (int64_t i0 = 0; i0 < rows; i0 += kTile) {
    for (int64_t j0 = 0; j0 < cols; j0 += kTile) {
      int64_t i1 = std::min(rows, i0 + kTile), j1 = std::min(cols, j0 + kTile);
      for (int64_t i = i0; i < i1; ++i) {
        for (int64_t j = j0; j < j1; ++j) d[i * ld + j] = s[i * si + j * sj];
      }
    }
  }
}

// A copy whose source walks memory in another order than the (contiguous) destination, like
// a transpose: reading along the destination's rows would touch a new cache line per element,
// so it goes tile by tile over the destination's last dim and the source's unit-stride dim.
bool copy_transposed(const KernelContext& ctx, const Operand& src, const Operand& dst) {
  int rank = dst.rank, last = rank - 1;
  if (rank < 2 || src.rank != rank || dst.numel() < 4096 || !dst.is_contiguous()) return false;
  for (int d = 0; d < rank; ++d) {
    if (src.shape[d] != dst.shape[d]) return false;  // broadcasts take the general loop
  }
  if (src.strides[last] == 1 || dst.shape[last] == 1) return false;
  int unit = -1;  // the source dim with unit stride
  for (int d = 0; d < last; ++d) {
    if ((src.strides[d] == 1 || src.strides[d] == -1) && dst.shape[d] > 1) unit = d;
  }
  if (unit < 0) return false;
  // Tiles of (unit, last) for each position of the other dims.
  Operand outer_src = src, outer_dst = dst;
  outer_src.shape[unit] = outer_src.shape[last] = 1;
  outer_dst.shape[unit] = outer_dst.shape[last] = 1;
  int64_t rows = dst.shape[unit], cols = dst.shape[last];
  int64_t si = src.strides[unit], sj = src.strides[last];  // elements
  int64_t ld = dst.strides[unit];                          // elements between destination rows
  Operand ops[2] = {outer_dst, outer_src};
  StridedLoop loop(outer_dst.dims(), ops);
  visit_itemsize(static_cast<size_t>(dst.itemsize), [&]<typename U>(TypeTag<U>) {
    auto tiles = [&](char* d, const char* s, int64_t row_begin, int64_t row_end) {
      int64_t skip = row_begin * static_cast<int64_t>(sizeof(U));
      copy_tile<U>(s + skip * si, si, sj, d + skip * ld, ld, row_end - row_begin, cols);
    };
    if (loop.numel() == 1) {  // one matrix: split its rows among threads
      char* d = outer_dst.data;
      const char* s = outer_src.data;
      parallel_for(rows, std::max<int64_t>(kTile, kParallelGrain / cols), ctx.threads,
                   [&](int64_t begin, int64_t end) { tiles(d, s, begin, end); });
      return;
    }
    int64_t grain = std::max<int64_t>(1, kParallelGrain / (rows * cols));
    parallel_for(loop.numel(), grain, ctx.threads, [&](int64_t begin, int64_t end) {
      loop.run(begin, end, [&](char* const* p, const int64_t* st, int64_t n) {
        for (int64_t k = 0; k < n; ++k) tiles(p[0] + k * st[0], p[1] + k * st[1], 0, rows);
      });
    });
  });
  return true;
}

}  // namespace

void cast_into(const KernelContext& ctx, const Operand& src, const Operand& dst) {
  if (src.dtype == dst.dtype) return copy_into(ctx, src, dst);
  if (ir::is_complex(src.dtype) || ir::is_complex(dst.dtype)) {
    return cast_complex_into(ctx, src, dst);  // issue 4
  }
  Operand ops[2] = {dst, src};
  visit_dtype(src.dtype, [&]<typename From>(TypeTag<From>) {
    visit_dtype(dst.dtype, [&]<typename To>(TypeTag<To>) {
      launch(ctx.threads, ops, [](char* const* p, const int64_t* s, int64_t n) {
        unary_row<From, To>(p, s, n, CastOp<From, To>{});
      });
    });
  });
}

void copy_into(const KernelContext& ctx, const Operand& src, const Operand& dst) {
  if (copy_transposed(ctx, src, dst)) return;
  Operand ops[2] = {dst, src};
  visit_itemsize(static_cast<size_t>(dst.itemsize), [&]<typename U>(TypeTag<U>) {
    launch(ctx.threads, ops, [](char* const* p, const int64_t* s, int64_t n) {
      if (s[0] == sizeof(U) && s[1] == sizeof(U)) {
        std::memcpy(p[0], p[1], static_cast<size_t>(n) * sizeof(U));
      } else {
        unary_row<U, U>(p, s, n, [](U x) { return x; });
      }
    });
  });
}

TensorValue cast_to(const KernelContext& ctx, const TensorValue& v, ir::DType dtype) {
  if (v.type.dtype == dtype) return v;
  TensorValue out = allocate_value(ctx.scratch, ir::TensorType{dtype, v.type.shape});
  cast_into(ctx, operand_of(v), operand_of(out));
  return out;
}

Operand operand_as(const KernelContext& ctx, const TensorValue& v, ir::DType dtype,
                   TensorValue& keep) {
  if (v.type.dtype == dtype) return operand_of(v);
  keep = cast_to(ctx, v, dtype);
  return operand_of(keep);
}

TensorValue make_contiguous(const KernelContext& ctx, const TensorValue& v) {
  Operand src = operand_of(v);
  if (src.is_contiguous()) return v;
  TensorValue out = allocate_value(ctx.scratch, v.type);
  copy_into(ctx, src, operand_of(out));
  return out;
}

}  // namespace tensord::cpu
