// Issue 4's remaining indexing ops with static output shapes (docs/ops.md): searchsorted,
// scatter_reduce, index_put, unfold, which run_movement hands on. The data-dependent ones are in
// kernels_data_dependent.cpp.
//
// Like scatter, the arithmetic ones work on dense float64 (floats) or int64 (integers, bool)
// copies of their inputs, so every dtype is exact until the one final rounding; integer sums
// and products wrap (computed as uint64). Index positions are visited in row-major order:
// with repeated targets the last write wins and reductions combine in that order.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "engine/backends/cpu/dispatch.h"
#include "engine/backends/cpu/kernels.h"

namespace tensord::cpu {
namespace {

using ir::Attr;
using ir::DType;
using ir::Op;
using ir::Shape;

DType acc_of(DType t) {
  return ir::is_floating(t) ? DType::Float64 : DType::Int64;
}

[[noreturn]] void out_of_range(int64_t i, int64_t axis, int64_t size) {
  throw Error(ErrorCode::Shape, "index " + std::to_string(i) + " is out of bounds for axis " +
                                    std::to_string(axis) + " with size " + std::to_string(size));
}

int64_t wrap_index(int64_t i, int64_t axis, int64_t size) {
  if (i < -size || i >= size) out_of_range(i, axis, size);
  return i < 0 ? i + size : i;
}

// Row-major multi-index over `shape`, advanced one element at a time.
struct Counter {
  explicit Counter(const Shape& shape) : shape(shape), pos(shape.size(), 0) {}
  void next() {
    for (auto d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
      if (++pos[d] < shape[d]) return;
      pos[d] = 0;
    }
  }
  const Shape& shape;
  std::vector<int64_t> pos;
};

// Element strides of a row-major tensor of `from` broadcast to `to` (0 on broadcast dims).
std::vector<int64_t> broadcast_strides(const Shape& from, const Shape& to) {
  std::vector<int64_t> own = ir::contiguous_strides(from), out(to.size(), 0);
  const size_t off = to.size() - from.size();
  for (size_t d = 0; d < from.size(); ++d) out[off + d] = from[d] == 1 ? 0 : own[d];
  return out;
}

// NaN sorts last, as in NumPy and PyTorch.
bool less(double a, double b) {
  return a < b || (!std::isnan(a) && std::isnan(b));
}
bool less(int64_t a, int64_t b) {
  return a < b;
}

// ---- searchsorted ----------------------------------------------------------------------

template <typename C>
void search(const C* seq, const int64_t* sorter, int64_t rows, int64_t len, const C* values,
            int64_t per_row, bool right, int64_t* out) {
  for (int64_t r = 0; r < rows; ++r) {
    const C* s = seq + r * len;
    const int64_t* order = sorter ? sorter + r * len : nullptr;
    auto at = [&](int64_t j) { return order ? s[order[j]] : s[j]; };
    for (int64_t k = 0; k < per_row; ++k) {
      const C v = values[r * per_row + k];
      int64_t lo = 0, hi = len;
      while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        const bool go_right = right ? !less(v, at(mid)) : less(at(mid), v);
        if (go_right) {
          lo = mid + 1;
        } else {
          hi = mid;
        }
      }
      out[r * per_row + k] = lo;
    }
  }
}

void run_searchsorted(const KernelContext& ctx, const ir::Node& node,
                      std::span<const TensorValue> inputs, const TensorValue& out) {
  const TensorValue &seq_in = inputs[0], &values_in = inputs[1];
  const bool floats = ir::is_floating(seq_in.type.dtype) || ir::is_floating(values_in.type.dtype);
  const DType cmp = floats ? DType::Float64 : DType::Int64;
  TensorValue seq = dense_copy(ctx, seq_in, cmp), values = dense_copy(ctx, values_in, cmp);
  const int64_t len = seq.type.shape.back();
  const int64_t rows = len == 0 ? 0 : seq.type.numel() / len;
  TensorValue sorter;
  if (inputs.size() == 3) {
    sorter = dense_copy(ctx, inputs[2], DType::Int64);
    int64_t* s = sorter.data<int64_t>();
    for (int64_t k = 0; k < sorter.type.numel(); ++k) {
      s[k] = wrap_index(s[k], seq.type.rank() - 1, len);
    }
  }
  const int64_t* order = inputs.size() == 3 ? sorter.data<int64_t>() : nullptr;
  const bool right = node.attrs.get_bool(Attr::right, false);
  const int64_t n = values.type.numel();
  int64_t* o = out.data<int64_t>();
  if (seq.type.rank() == 1) {
    // One sequence for every value.
    if (floats) {
      search(seq.data<double>(), order, 1, len, values.data<double>(), n, right, o);
    } else {
      search(seq.data<int64_t>(), order, 1, len, values.data<int64_t>(), n, right, o);
    }
    return;
  }
  const int64_t per_row = rows == 0 ? 0 : n / std::max<int64_t>(rows, 1);
  if (rows == 0) return;
  if (floats) {
    search(seq.data<double>(), order, rows, len, values.data<double>(), per_row, right, o);
  } else {
    search(seq.data<int64_t>(), order, rows, len, values.data<int64_t>(), per_row, right, o);
  }
}

// ---- scatter_reduce ---------------------------------------------------------------------

enum Reduction : int64_t { kSum = 0, kProd = 1, kMean = 2, kAmax = 3, kAmin = 4 };

double combine(int64_t r, double a, double b) {
  switch (r) {
    case kSum:
    case kMean:
      return a + b;
    case kProd:
      return a * b;
    case kAmax:
      return std::isnan(a) || std::isnan(b) ? NAN : std::max(a, b);
    default:
      return std::isnan(a) || std::isnan(b) ? NAN : std::min(a, b);
  }
}
int64_t combine(int64_t r, int64_t a, int64_t b) {
  const auto ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
  switch (r) {
    case kSum:
    case kMean:
      return static_cast<int64_t>(ua + ub);
    case kProd:
      return static_cast<int64_t>(ua * ub);
    case kAmax:
      return std::max(a, b);
    default:
      return std::min(a, b);
  }
}
double mean_of(double sum, int64_t count) {
  return sum / static_cast<double>(count);
}
int64_t mean_of(int64_t sum, int64_t count) {  // floor division, as PyTorch's integer mean
  int64_t q = sum / count;
  if (sum % count != 0 && sum < 0) --q;
  return q;
}

template <typename A>
void scatter_reduce_into(const ScratchSite& scratch, int64_t reduction, bool include_self, A* acc,
                         const Shape& x_shape, const int64_t* index, const Shape& index_shape,
                         const A* src, const Shape& src_shape, int64_t axis) {
  const std::vector<int64_t> xs = ir::contiguous_strides(x_shape);
  const std::vector<int64_t> ss = ir::contiguous_strides(src_shape);
  ScratchVector<int64_t> count(scratch, static_cast<size_t>(ir::numel(x_shape)),
                               include_self ? 1 : 0);
  Counter c(index_shape);
  const int64_t n = ir::numel(index_shape), size = x_shape[axis];
  for (int64_t k = 0; k < n; ++k, c.next()) {
    const int64_t i = wrap_index(index[k], axis, size);
    int64_t o = 0, s = 0;
    for (size_t d = 0; d < index_shape.size(); ++d) {
      o += (static_cast<int64_t>(d) == axis ? i : c.pos[d]) * xs[d];
      s += c.pos[d] * ss[d];
    }
    acc[o] = count[o] == 0 ? src[s] : combine(reduction, acc[o], src[s]);
    ++count[o];
  }
  if (reduction == kMean) {
    for (size_t o = 0; o < count.size(); ++o) {
      if (count[o] > 1) acc[o] = mean_of(acc[o], count[o]);
    }
  }
}

void run_scatter_reduce(const KernelContext& ctx, const ir::Node& node,
                        std::span<const TensorValue> inputs, const TensorValue& out) {
  const DType acc = acc_of(out.type.dtype);
  const int64_t axis = ir::normalize_axis(node.attrs.get_int(Attr::axis), out.type.rank());
  const int64_t reduction = node.attrs.get_int(Attr::reduction);
  const bool include_self = node.attrs.get_bool(Attr::include_self, true);
  TensorValue result = dense_copy(ctx, inputs[0], acc);
  TensorValue index = dense_copy(ctx, inputs[1], DType::Int64);
  TensorValue src =
      dense_copy(ctx, dense_copy(ctx, inputs[2], out.type.dtype), acc);  // src in x's dtype
  if (acc == DType::Float64) {
    scatter_reduce_into(ctx.scratch, reduction, include_self, result.data<double>(), out.type.shape,
                        index.data<int64_t>(), index.type.shape, src.data<double>(), src.type.shape,
                        axis);
  } else {
    scatter_reduce_into(ctx.scratch, reduction, include_self, result.data<int64_t>(),
                        out.type.shape, index.data<int64_t>(), index.type.shape,
                        src.data<int64_t>(), src.type.shape, axis);
  }
  cast_into(ctx, operand_of(result), operand_of(out));
}

// ---- index_put --------------------------------------------------------------------------

// Accumulation happens in float64 or int64 (acc_of); assignment in x's own bits (any A).
template <typename A>
void put(A* x, int64_t o, A v, bool accumulate) {
  if (!accumulate) {
    x[o] = v;
  } else if constexpr (std::is_floating_point_v<A>) {
    x[o] += v;
  } else if constexpr (std::is_integral_v<A>) {
    x[o] = static_cast<A>(static_cast<uint64_t>(x[o]) + static_cast<uint64_t>(v));
  }
}

// Writes values (broadcast to `slot` = (rows,) + tail) at x offsets base(row) + t.
template <typename A, typename Base>
void put_rows(A* x, int64_t rows, int64_t tail, const A* values, const Shape& values_shape,
              const Shape& slot, bool accumulate, Base base) {
  if (!accumulate && values_shape == slot) {  // one row of values after another: copies
    for (int64_t r = 0; r < rows; ++r) std::copy_n(values + r * tail, tail, x + base(r));
    return;
  }
  const std::vector<int64_t> vs = broadcast_strides(values_shape, slot);
  Counter c(slot);
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t b = base(r);
    for (int64_t t = 0; t < tail; ++t, c.next()) {
      int64_t v = 0;
      for (size_t d = 0; d < slot.size(); ++d) v += c.pos[d] * vs[d];
      put(x, b + t, values[v], accumulate);
    }
  }
}

template <typename A>
void index_put_into(const KernelContext& ctx, A* x, const Shape& x_shape,
                    std::span<const TensorValue> indices, const A* values,
                    const Shape& values_shape, bool accumulate) {
  const std::vector<int64_t> xs = ir::contiguous_strides(x_shape);
  if (indices.size() == 1 && indices[0].type.dtype == DType::Bool) {
    TensorValue mask = dense_copy(ctx, indices[0], DType::Int64);
    const int64_t* m = mask.data<int64_t>();
    const int64_t cells = mask.type.numel();
    const Shape rest(x_shape.begin() + mask.type.rank(), x_shape.end());
    const int64_t tail = ir::numel(rest);
    std::vector<int64_t> rows;
    for (int64_t k = 0; k < cells; ++k) {
      if (m[k] != 0) rows.push_back(k);
    }
    Shape slot = rest;
    slot.insert(slot.begin(), static_cast<int64_t>(rows.size()));
    if (values_shape.size() == slot.size() && values_shape[0] != 1 &&
        values_shape[0] != static_cast<int64_t>(rows.size())) {
      throw Error(ErrorCode::Shape, "index_put's values " + ir::to_string(values_shape) +
                                        " do not broadcast to the " + ir::to_string(slot) +
                                        " elements the mask selects");
    }
    put_rows(x, static_cast<int64_t>(rows.size()), tail, values, values_shape, slot, accumulate,
             [&](int64_t r) { return rows[r] * tail; });
    return;
  }
  Shape b;
  std::vector<TensorValue> idx;
  for (const TensorValue& i : indices) {
    b = ir::broadcast_shapes(b, i.type.shape);
    idx.push_back(dense_copy(ctx, i, DType::Int64));
  }
  const size_t k = indices.size();
  std::vector<std::vector<int64_t>> strides;
  for (const TensorValue& i : idx) strides.push_back(broadcast_strides(i.type.shape, b));
  const Shape rest(x_shape.begin() + static_cast<int64_t>(k), x_shape.end());
  const int64_t tail = ir::numel(rest), rows = ir::numel(b);
  Shape slot = b;
  slot.insert(slot.end(), rest.begin(), rest.end());
  // The x offset of each row, checked before anything is written.
  ScratchVector<int64_t> base(ctx.scratch, static_cast<size_t>(rows), 0);
  Counter c(b);
  for (int64_t r = 0; r < rows; ++r, c.next()) {
    for (size_t d = 0; d < k; ++d) {
      int64_t at = 0;
      for (size_t e = 0; e < b.size(); ++e) at += c.pos[e] * strides[d][e];
      const int64_t i = wrap_index(idx[d].data<int64_t>()[at], static_cast<int64_t>(d), x_shape[d]);
      base[r] += i * xs[d];
    }
  }
  put_rows(x, rows, tail, values, values_shape, slot, accumulate,
           [&](int64_t r) { return base[r]; });
}

void run_index_put(const KernelContext& ctx, const ir::Node& node,
                   std::span<const TensorValue> inputs, const TensorValue& out) {
  const DType acc = acc_of(out.type.dtype);
  const bool accumulate = node.attrs.get_bool(Attr::accumulate, false);
  if (!accumulate) {
    // Assignment moves bits: x copied into out, the values cast to x's dtype (as assignment
    // into x would), rows written in place; no round trip through float64 (that and a walk
    // of the values' coordinates per element took 22x NumPy's time).
    cast_into(ctx, operand_of(inputs[0]), operand_of(out));
    const TensorValue values = inputs[1].type.dtype == out.type.dtype
                                   ? make_contiguous(ctx, inputs[1])  // no copy when it is
                                   : dense_copy(ctx, inputs[1], out.type.dtype);
    visit_itemsize(ir::itemsize(out.type.dtype), [&]<typename U>(TypeTag<U>) {
      index_put_into(ctx, static_cast<U*>(out.raw()), out.type.shape, inputs.subspan(2),
                     static_cast<const U*>(values.raw()), values.type.shape, false);
    });
    return;
  }
  TensorValue result = dense_copy(ctx, inputs[0], acc);
  // Values are cast to x's dtype first (then widened), as assignment into x would.
  TensorValue values = dense_copy(ctx, dense_copy(ctx, inputs[1], out.type.dtype), acc);
  if (acc == DType::Float64) {
    index_put_into(ctx, result.data<double>(), out.type.shape, inputs.subspan(2),
                   values.data<double>(), values.type.shape, accumulate);
  } else {
    index_put_into(ctx, result.data<int64_t>(), out.type.shape, inputs.subspan(2),
                   values.data<int64_t>(), values.type.shape, accumulate);
  }
  cast_into(ctx, operand_of(result), operand_of(out));
}

// ---- unfold -------------------------------------------------------------------------------

// Copies each window of `window` elements `stride` apart in the source, one output row each.
template <typename U>
void copy_windows(const U* src, U* dst, std::span<const int64_t> starts, int64_t window,
                  int64_t stride) {
  if (stride == 1) {
    // Windows along the innermost axis are contiguous; runs of windows that follow each other
    // in the source (step == size) are one copy (a 4-element loop a window took 12x NumPy's
    // copy of the same bytes).
    for (size_t r = 0; r < starts.size();) {
      size_t end = r + 1;
      while (end < starts.size() && starts[end] == starts[end - 1] + window) ++end;
      std::copy_n(src + starts[r], static_cast<int64_t>(end - r) * window,
                  dst + static_cast<int64_t>(r) * window);
      r = end;
    }
    return;
  }
  for (size_t r = 0; r < starts.size(); ++r) {
    const U* s = src + starts[r];
    U* d = dst + static_cast<int64_t>(r) * window;
    for (int64_t w = 0; w < window; ++w) d[w] = s[w * stride];
  }
}

void run_unfold(const KernelContext& ctx, const ir::Node& node, const TensorValue& in,
                const TensorValue& out) {
  const TensorValue x =
      make_contiguous(ctx, in);  // no copy when it is (dense_copy() always copied)
  const int64_t rank = x.type.rank();
  const int64_t axis =
      ir::normalize_axis(node.attrs.get_int(Attr::axis), std::max<int64_t>(rank, 1));
  const int64_t step = node.attrs.get_int(Attr::step);
  const std::vector<int64_t> xs = ir::contiguous_strides(x.type.shape);
  const int64_t window = out.type.shape.back();
  if (out.type.numel() == 0) return;
  // The source offset of each output row (all dims but the window's), computed once per row
  // rather than per element (a per-element offset and memcpy took 40x NumPy's copy).
  const Shape rows_shape(out.type.shape.begin(), out.type.shape.end() - 1);
  Counter c(rows_shape);
  ScratchVector<int64_t> starts(ctx.scratch, static_cast<size_t>(out.type.numel() / window));
  for (int64_t& s : starts) {
    s = 0;
    for (int64_t d = 0; d < rank; ++d) s += c.pos[d] * xs[d];
    if (rank > 0) s += c.pos[axis] * (step - 1) * xs[axis];
    c.next();
  }
  const int64_t stride = rank > 0 ? xs[axis] : 0;
  auto go = [&](auto tag) {
    using U = typename decltype(tag)::type;
    copy_windows(static_cast<const U*>(x.raw()), static_cast<U*>(out.raw()), starts, window,
                 stride);
  };
  struct Pair {
    uint64_t lo, hi;
  };
  switch (ir::itemsize(out.type.dtype)) {
    case 1:
      return go(std::type_identity<uint8_t>{});
    case 2:
      return go(std::type_identity<uint16_t>{});
    case 4:
      return go(std::type_identity<uint32_t>{});
    case 8:
      return go(std::type_identity<uint64_t>{});
    case 16:
      return go(std::type_identity<Pair>{});
    default:
      throw Error(ErrorCode::Internal, "unfold: unexpected item size");
  }
}

}  // namespace

TensorValue dense_copy(const KernelContext& ctx, const TensorValue& v, DType dtype,
                       const Shape* shape) {
  TensorValue out =
      allocate_value(ctx.scratch, ir::TensorType{dtype, shape ? *shape : v.type.shape});
  cast_into(ctx, operand_of(v), operand_of(out));
  return out;
}

bool is_index_more(Op op) {
  switch (op) {
    case Op::searchsorted:
    case Op::scatter_reduce:
    case Op::index_put:
    case Op::unfold:
      return true;
    default:
      return false;
  }
}

void run_index_more(const KernelContext& ctx, const ir::Node& node,
                    std::span<const TensorValue> inputs, const TensorValue& out) {
  switch (node.op) {
    case Op::searchsorted:
      return run_searchsorted(ctx, node, inputs, out);
    case Op::scatter_reduce:
      return run_scatter_reduce(ctx, node, inputs, out);
    case Op::index_put:
      return run_index_put(ctx, node, inputs, out);
    case Op::unfold:
      return run_unfold(ctx, node, inputs[0], out);
    default:
      break;
  }
  throw Error(ErrorCode::Internal, "no index kernel for " + std::string(ir::name(node.op)));
}

}  // namespace tensord::cpu
