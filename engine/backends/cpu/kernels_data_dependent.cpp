// The CPU's ops whose output shapes depend on the data (ir::is_data_dependent): nonzero,
// flatnonzero, masked_select, unique with its four outputs, repeat_interleave_tensor. Each
// sizes and allocates its own outputs (run_data_dependent), from the block cache as the
// engine's tensors are.
#include <algorithm>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "engine/backends/cpu/dispatch.h"
#include "engine/backends/cpu/host_buffer.h"
#include "engine/backends/cpu/kernels.h"
#include "engine/backends/cpu/line_sort.h"
#include "engine/backends/cpu/nonzero_scan.h"
#include "engine/ir/dynamic.h"

namespace tensord::cpu {
namespace {

using ir::Attr;
using ir::DType;
using ir::Op;
using ir::Shape;

// ---- unique (sorting helpers) ------------------------------------------------------------

// Group ids of the sorted distinct values: order (stable, NaN last) and, per position of
// `order`, whether it starts a new group. NaNs never equal anything, so each is its own value.
template <typename C>
std::pair<std::vector<int64_t>, std::vector<bool>> sorted_groups(const KernelContext& ctx,
                                                                 const C* v, int64_t n) {
  std::vector<int64_t> order(static_cast<size_t>(n));
  LineSort<C> sorter(ctx.scratch, n);
  sorter.sort(v, n, /*descending=*/false, order.data());
  std::vector<bool> starts(static_cast<size_t>(n), true);
  if (const RadixKey<C>* keys = sorter.sorted_keys()) {
    // Equal ordered keys are equal values (-0 and +0 included), but for NaN, whose key is all
    // ones: reading the keys in order spares a gather of v through `order`.
    constexpr auto kNan = static_cast<RadixKey<C>>(~RadixKey<C>{0});
    for (int64_t k = 1; k < n; ++k) {
      starts[k] = keys[k] != keys[k - 1] || (std::is_floating_point_v<C> && keys[k] == kNan);
    }
  } else {
    for (int64_t k = 1; k < n; ++k) starts[k] = !(v[order[k]] == v[order[k - 1]]);
  }
  return {std::move(order), std::move(starts)};
}

struct Groups {
  TensorValue values;  // dense, in the comparison dtype (comparison_dtype)
  std::vector<int64_t> order;
  std::vector<bool> starts;
  int64_t count = 0;
  profiler::BlockTicket order_ticket;  // `order` as scratch; after it, so freed first
};

// The narrowest of float32, float64, int32 and int64 that holds every value of `t` exactly:
// the radix sort then makes passes over 4 bytes, not 8.
DType comparison_dtype(DType t) {
  switch (t) {
    case DType::Float16:
    case DType::BFloat16:
    case DType::Float32:
      return DType::Float32;
    case DType::Float64:
      return DType::Float64;
    case DType::Int64:
      return DType::Int64;
    default:
      return DType::Int32;
  }
}

Groups groups_of(const KernelContext& ctx, const TensorValue& in) {
  Groups g;
  g.values = dense_copy(ctx, in, comparison_dtype(in.type.dtype));
  const int64_t n = g.values.type.numel();
  auto [order, starts] = [&] {
    switch (g.values.type.dtype) {
      case DType::Float32:
        return sorted_groups(ctx, g.values.data<float>(), n);
      case DType::Float64:
        return sorted_groups(ctx, g.values.data<double>(), n);
      case DType::Int32:
        return sorted_groups(ctx, g.values.data<int32_t>(), n);
      default:
        return sorted_groups(ctx, g.values.data<int64_t>(), n);
    }
  }();
  g.order = std::move(order);
  g.starts = std::move(starts);
  g.order_ticket = ctx.scratch.track(g.order.size() * sizeof(int64_t), g.order.data());
  g.count = std::count(g.starts.begin(), g.starts.end(), true);
  return g;
}

// ---- data-dependent ops -------------------------------------------------------------------

// An output of a data-dependent op: from the block cache, as the engine's tensors are.
TensorValue allocate(const KernelContext& ctx, DType t, Shape shape) {
  TensorValue v;
  v.type = ir::TensorType{t, std::move(shape)};
  v.buffer = ctx.blocks ? ctx.blocks->allocate(v.nbytes()) : allocate_host(v.nbytes());
  v.strides = ir::contiguous_strides(v.type.shape);
  return v;
}

// unique's outputs from one stable sort (the Array API's unique_all): the distinct values, the
// flat index of each one's first occurrence (the first of its group in a stable sort), every
// element's group (x's shape) and the group sizes.
std::vector<TensorValue> run_unique(const KernelContext& ctx, const TensorValue& in) {
  Groups g = groups_of(ctx, in);
  const size_t esize = ir::itemsize(g.values.type.dtype);
  TensorValue wide = allocate_value(ctx.scratch, ir::TensorType{g.values.type.dtype, {g.count}});
  TensorValue indices = allocate(ctx, DType::Int64, {g.count});
  TensorValue inverse = allocate(ctx, DType::Int64, in.type.shape);
  TensorValue counts = allocate(ctx, DType::Int64, {g.count});
  const char* src = static_cast<const char*>(g.values.raw());
  char* dst = static_cast<char*>(wide.raw());
  int64_t* first = indices.data<int64_t>();
  int64_t* group_of = inverse.data<int64_t>();
  int64_t* size = counts.data<int64_t>();
  int64_t group = -1;
  for (size_t k = 0; k < g.order.size(); ++k) {
    const int64_t at = g.order[k];
    if (g.starts[k]) {
      ++group;
      std::memcpy(dst + group * esize, src + at * esize, esize);
      first[group] = at;
      size[group] = 0;
    }
    group_of[at] = group;
    ++size[group];
  }
  TensorValue values = allocate(ctx, in.type.dtype, {g.count});
  cast_into(ctx, operand_of(wide), operand_of(values));
  std::vector<TensorValue> out;
  out.push_back(std::move(values));
  out.push_back(std::move(indices));
  out.push_back(std::move(inverse));
  out.push_back(std::move(counts));
  return out;
}

// Flat indices of the non-zero elements (NaN counts as non-zero; nonzero_scan.h).
std::vector<int64_t> nonzero_flat(const KernelContext& ctx, const TensorValue& in) {
  const TensorValue x = dense_copy(ctx, in, in.type.dtype);
  const int64_t n = x.type.numel();
  return visit_dtype(x.type.dtype, [&]<typename T>(TypeTag<T>) {
    return nonzero_positions(x.data<T>(), n, ctx.threads, [](T v) -> int64_t {
      return static_cast<ComputeT<T>>(v) != ComputeT<T>(0);
    });
  });
}

TensorValue select_rows(const KernelContext& ctx, const TensorValue& in, int64_t axis,
                        const std::vector<int64_t>& repeats, int64_t total) {
  TensorValue x = dense_copy(ctx, in, in.type.dtype);
  Shape shape = x.type.shape;
  const int64_t len = shape[axis];
  shape[axis] = total;
  TensorValue out = allocate(ctx, x.type.dtype, shape);
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= x.type.shape[d];
  for (int64_t d = axis + 1; d < x.type.rank(); ++d) inner *= x.type.shape[d];
  const size_t bytes = static_cast<size_t>(inner) * ir::itemsize(x.type.dtype);
  const char* src = static_cast<const char*>(x.raw());
  char* dst = static_cast<char*>(out.raw());
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < len; ++i) {
      for (int64_t r = 0; r < repeats[i]; ++r) {
        if (bytes) std::memcpy(dst, src + (o * len + i) * bytes, bytes);
        dst += bytes;
      }
    }
  }
  return out;
}

TensorValue run_one_output(const KernelContext& ctx, const ir::Node& node,
                           std::span<const TensorValue> inputs) {
  const TensorValue& in = inputs[0];
  switch (node.op) {
    case Op::nonzero: {
      const std::vector<int64_t> hits = nonzero_flat(ctx, in);
      const int64_t rank = in.type.rank();
      TensorValue out = allocate(ctx, DType::Int64, {static_cast<int64_t>(hits.size()), rank});
      if (rank == 0 || hits.empty()) return out;
      // Hits ascend: a hit in the same innermost row as the last one moves its last coordinate
      // only; the others are divided out (two divisions per hit took most of nonzero's time).
      const Shape& shape = in.type.shape;
      int64_t* o = out.data<int64_t>();
      std::vector<int64_t> coord(static_cast<size_t>(rank), 0);
      int64_t at = 0;  // the flat position of coord
      for (int64_t h : hits) {
        coord.back() += h - at;
        at = h;
        if (coord.back() >= shape.back()) {
          int64_t q = h;
          for (int64_t d = rank - 1; d >= 0; --d) {
            coord[static_cast<size_t>(d)] = q % shape[d];
            q /= shape[d];
          }
        }
        std::memcpy(o, coord.data(), static_cast<size_t>(rank) * sizeof(int64_t));
        o += rank;
      }
      return out;
    }
    case Op::flatnonzero: {
      const std::vector<int64_t> hits = nonzero_flat(ctx, in);
      TensorValue out = allocate(ctx, DType::Int64, {static_cast<int64_t>(hits.size())});
      if (!hits.empty()) std::memcpy(out.raw(), hits.data(), hits.size() * sizeof(int64_t));
      return out;
    }
    case Op::masked_select: {
      const Shape shape = ir::broadcast_shapes(in.type.shape, inputs[1].type.shape);
      TensorValue x = dense_copy(ctx, in, in.type.dtype, &shape);
      TensorValue mask = dense_copy(ctx, inputs[1], DType::Bool, &shape);
      // The selected positions (nonzero_scan.h), then one gather of elements of their size.
      const std::vector<int64_t> hits = nonzero_positions(
          mask.data<bool>(), x.type.numel(), ctx.threads, [](bool v) -> int64_t { return v; });
      TensorValue out = allocate(ctx, in.type.dtype, {static_cast<int64_t>(hits.size())});
      visit_itemsize(ir::itemsize(in.type.dtype), [&]<typename U>(TypeTag<U>) {
        const U* src = static_cast<const U*>(x.raw());
        U* dst = static_cast<U*>(out.raw());
        for (size_t h = 0; h < hits.size(); ++h) dst[h] = src[hits[h]];
      });
      return out;
    }
    case Op::repeat_interleave_tensor: {
      TensorValue x = in;
      int64_t axis = 0;
      if (node.attrs.has(Attr::axis)) {
        axis = ir::normalize_axis(node.attrs.get_int(Attr::axis), in.type.rank());
      } else {
        x = dense_copy(ctx, in, in.type.dtype);
        x.type.shape = {in.type.numel()};
        x.strides = {1};
      }
      const int64_t len = x.type.shape[axis];
      TensorValue r = dense_copy(ctx, inputs[1], DType::Int64);
      ScratchVector<int64_t> repeats(ctx.scratch, static_cast<size_t>(len));
      int64_t total = 0;
      for (int64_t i = 0; i < len; ++i) {
        const int64_t v = r.type.numel() == 1 ? r.data<int64_t>()[0] : r.data<int64_t>()[i];
        if (v < 0) {
          throw Error(ErrorCode::Shape,
                      "repeat_interleave got a negative repeat count " + std::to_string(v));
        }
        repeats[i] = v;
        if (__builtin_add_overflow(total, v, &total)) {
          throw Error(ErrorCode::OutOfMemory, "repeat_interleave's repeats overflow int64");
        }
      }
      return select_rows(ctx, x, axis, repeats.vector(), total);
    }
    default:
      break;
  }
  throw Error(ErrorCode::Internal,
              std::string(ir::name(node.op)) + " is not a data-dependent op of the CPU backend");
}

}  // namespace

std::vector<TensorValue> run_data_dependent(const KernelContext& ctx, const ir::Node& node,
                                            std::span<const TensorValue> inputs) {
  if (node.op == Op::unique) return run_unique(ctx, inputs[0]);
  std::vector<TensorValue> out;
  out.push_back(run_one_output(ctx, node, inputs));
  return out;
}

}  // namespace tensord::cpu
