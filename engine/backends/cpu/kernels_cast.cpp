// cast between any two dtypes, and plain copies between layouts.
#include <cstring>

#include "engine/backends/cpu/elementwise.h"
#include "engine/backends/cpu/host_buffer.h"
#include "engine/backends/cpu/kernels.h"
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

}  // namespace

void cast_into(const KernelContext& ctx, const Operand& src, const Operand& dst) {
  if (src.dtype == dst.dtype) return copy_into(ctx, src, dst);
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
  TensorValue out = allocate_value(ir::TensorType{dtype, v.type.shape});
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
  TensorValue out = allocate_value(v.type);
  copy_into(ctx, src, operand_of(out));
  return out;
}

}  // namespace tensord::cpu
