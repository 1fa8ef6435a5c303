// The builder composite ops expand with (decompose.cpp and decompose_*.cpp): appends the
// primitives of one composite node to the rewritten graph, each keeping the composite's source
// location and origin.
#pragma once

#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "engine/ir/axes.h"
#include "engine/ir/passes.h"

namespace tensord::ir {

using Ints = std::vector<int64_t>;

// float16/bfloat16 composites compute in float32 and round once at the end.
inline DType compute_dtype(DType t) {
  return t == DType::Float16 || t == DType::BFloat16 ? DType::Float32 : t;
}

// Appends the primitives of one composite node to the rewritten graph.
class Expansion {
 public:
  Expansion(Rewritten& out, uint32_t origin, NodeLocation loc)
      : out_(out), origin_(origin), loc_(loc) {}

  ValueRef add(Op op, std::vector<ValueRef> inputs, Attrs attrs = {}) {
    ValueRef v = out_.graph.add(op, std::move(inputs), std::move(attrs), loc_);
    out_.origin.push_back(origin_);
    return v;
  }
  const TensorType& type(ValueRef v) const { return out_.graph.type(v); }
  const Node& producer(ValueRef v) const { return out_.graph.nodes[v.node]; }

  ValueRef full(Shape shape, AttrValue value, DType t) {
    return add(
        Op::full, {},
        {{Attr::shape, std::move(shape)}, {Attr::value, std::move(value)}, {Attr::dtype, t}});
  }
  ValueRef scalar(double value, DType t) { return full({}, value, t); }
  ValueRef cast(ValueRef v, DType t) {
    return type(v).dtype == t ? v : add(Op::cast, {v}, {{Attr::dtype, t}});
  }
  ValueRef unary(Op op, ValueRef x) { return add(op, {x}); }
  ValueRef binary(Op op, ValueRef a, ValueRef b) { return add(op, {a, b}); }
  // A sum over trailing axes and others too is taken in two steps when the trailing extent is
  // large enough (trailing_first), the trailing axes first: the fuser takes a trailing
  // reduction together with its elementwise producer, and the second step reads only the
  // partial sums. In one step, batch_norm's statistics over (N, H, W) of NCHW stored
  // (x - mean)^2 whole and read it back.
  ValueRef sum(ValueRef x, const Ints& axes, bool keepdim);
  ValueRef reduce(Op op, ValueRef x, const Ints& axes, bool keepdim) {
    return add(op, {x}, {{Attr::axes, axes}, {Attr::keepdim, keepdim}});
  }
  ValueRef where(ValueRef cond, ValueRef a, ValueRef b) { return add(Op::where, {cond, a, b}); }
  // Any op: a composite (log_softmax inside cross_entropy) is expanded on the spot.
  ValueRef call(Op op, std::vector<ValueRef> inputs, Attrs attrs = {});
  ValueRef reshape(ValueRef x, Shape shape) {
    return add(Op::reshape, {x}, {{Attr::shape, std::move(shape)}});
  }

 private:
  Rewritten& out_;
  uint32_t origin_;
  NodeLocation loc_;
};

inline Ints axes_of(AxisMask mask, int64_t rank) {
  Ints axes;
  for (int64_t d = 0; d < rank; ++d) {
    if (has_axis(mask, d)) axes.push_back(d);
  }
  return axes;
}

// A reduction's result shape without kept axes.
inline Shape without_axes(const Shape& shape, AxisMask mask) {
  Shape kept;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (!has_axis(mask, static_cast<int64_t>(d))) kept.push_back(shape[d]);
  }
  return kept;
}

// The axes of a sum over trailing axes and others too, split in two (trailing, leading) when
// the trailing extent is large enough to gain by it (Expansion::sum); nullopt otherwise. On the
// CPU (stop 35), var over (0, 2, 3) of (1024, 64, 4, 4) float32 took 2.6-2.9 ms split against
// 4.9-5.3 in one step; of (4096, 64, 2, 2), trailing extent 4, split was no faster.
inline std::optional<std::pair<Ints, Ints>> trailing_first(const Shape& shape, AxisMask mask) {
  constexpr int64_t kSplitMinTrailingExtent = 16;
  const auto rank = static_cast<int64_t>(shape.size());
  int64_t first_trailing = rank, trailing_extent = 1;
  while (first_trailing > 0 && has_axis(mask, first_trailing - 1)) {
    trailing_extent *= shape[static_cast<size_t>(--first_trailing)];
  }
  Ints leading, trailing;
  for (int64_t d = 0; d < rank; ++d) {
    if (has_axis(mask, d)) (d < first_trailing ? leading : trailing).push_back(d);
  }
  if (leading.empty() || trailing.empty() || trailing_extent < kSplitMinTrailingExtent) {
    return std::nullopt;
  }
  return std::pair{std::move(trailing), std::move(leading)};
}

inline ValueRef Expansion::sum(ValueRef x, const Ints& axes, bool keepdim) {
  const Shape shape = type(x).shape;  // a copy: adding nodes moves the graph's nodes
  const AxisMask mask = reduction_axes({{Attr::axes, axes}}, static_cast<int64_t>(shape.size()));
  const auto one_step = [&](ValueRef v, const Ints& over, bool keep) {
    return add(Op::sum, {v}, {{Attr::axes, over}, {Attr::keepdim, keep}});
  };
  const auto split = trailing_first(shape, mask);
  if (!split) return one_step(x, axes, keepdim);
  ValueRef partial = one_step(x, split->first, true);
  ValueRef total = one_step(partial, split->second, true);
  return keepdim ? total : reshape(total, without_axes(shape, mask));
}

inline int64_t count_of(AxisMask mask, const Shape& shape) {
  int64_t n = 1;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (has_axis(mask, static_cast<int64_t>(d))) n *= shape[d];
  }
  return n;
}

// The composites of issue 4, by family; expand_issue4 (decompose_issue4.cpp) dispatches and
// throws Internal for an op no family expands.
ValueRef expand_issue4(Expansion& e, const Node& node, std::span<const ValueRef> in);
ValueRef expand_pointwise(Expansion& e, const Node& node, std::span<const ValueRef> in);
ValueRef expand_activation(Expansion& e, const Node& node, std::span<const ValueRef> in);
ValueRef expand_reduction(Expansion& e, const Node& node, std::span<const ValueRef> in);
ValueRef expand_loss(Expansion& e, const Node& node, std::span<const ValueRef> in);
ValueRef expand_shape_op(Expansion& e, const Node& node, std::span<const ValueRef> in);
ValueRef expand_linalg(Expansion& e, const Node& node, std::span<const ValueRef> in);
ValueRef expand_index_more(Expansion& e, const Node& node, std::span<const ValueRef> in);
ValueRef expand_nn(Expansion& e, const Node& node, std::span<const ValueRef> in);  // decompose_nn
// x to the power n >= 1 by squaring and multiplying (decompose_power.cpp).
ValueRef integer_power(Expansion& e, ValueRef x, int n);
// pow(x, 2) and pow(x, 3) of a constant exponent that neither broadcasts nor promotes x, as
// products of x; nullopt for any other pow (decompose_power.cpp).
std::optional<ValueRef> power_by_products(Expansion& e, const Node& node,
                                          std::span<const ValueRef> in);
// Every composite (decompose.cpp), for Expansion::call.
ValueRef expand_any(Expansion& e, const Node& node, std::span<const ValueRef> in);

inline ValueRef Expansion::call(Op op, std::vector<ValueRef> inputs, Attrs attrs) {
  if (op_info(op).kind != OpKind::Composite) return add(op, std::move(inputs), std::move(attrs));
  std::vector<const TensorType*> types;
  for (ValueRef v : inputs) types.push_back(&type(v));
  Node node{op, std::move(inputs), std::move(attrs), {}, loc_};
  node.outputs = infer(op, types, node.attrs);
  return expand_any(*this, node, node.inputs);
}

}  // namespace tensord::ir
