#include "engine/plan/view_layout.h"

#include <string>

#include "engine/ir/error.h"

namespace tensord::engine {
namespace {

std::optional<int64_t> optional_int(const ir::Attrs& attrs, ir::Attr a) {
  if (!attrs.has(a)) return std::nullopt;
  return attrs.get_int(a);
}

Layout sliced_layout(const ir::Node& node, const ir::TensorType& in_type, const Layout& in) {
  const int64_t axis = ir::normalize_axis(node.attrs.get_int(ir::Attr::axis), in_type.rank());
  const SliceRange range =
      slice_range(in_type.shape[axis], optional_int(node.attrs, ir::Attr::start),
                  optional_int(node.attrs, ir::Attr::stop), node.attrs.get_int(ir::Attr::step, 1));
  // The planner and shape inference must agree on the length, or kernels would read out of
  // bounds; a disagreement is a bug, not a user error.
  if (range.length != node.outputs[0].shape[axis]) {
    throw Error(ErrorCode::Internal, "slice planned with length " + std::to_string(range.length) +
                                         " but inferred as " + ir::to_string(node.outputs[0]));
  }
  return sliced(in, axis, range);
}

}  // namespace

namespace {
std::optional<Layout> view_layout_no_conj(const ir::Node& node, const ir::TensorType& in_type,
                                          const Layout& in);
}  // namespace

// Every view keeps its input's conjugate bit; conj (issue 4) flips it on complex values and is
// the identity on real ones.
std::optional<Layout> view_layout(const ir::Node& node, const ir::TensorType& in_type,
                                  const Layout& in) {
  if (node.op == ir::Op::conj) {
    Layout out = in;
    if (ir::is_complex(in_type.dtype)) out.conj = !in.conj;
    return out;
  }
  std::optional<Layout> out = view_layout_no_conj(node, in_type, in);
  if (out) out->conj = in.conj;
  return out;
}

namespace {
std::optional<Layout> view_layout_no_conj(const ir::Node& node, const ir::TensorType& in_type,
                                          const Layout& in) {
  const ir::Shape& out_shape = node.outputs[0].shape;
  if (ir::numel(out_shape) == 0) return contiguous_layout(out_shape);
  switch (node.op) {
    case ir::Op::reshape: {
      auto strides = view_strides(in_type.shape, in.strides, out_shape);
      if (!strides) return std::nullopt;
      return Layout{std::move(*strides), in.offset};
    }
    case ir::Op::permute: {
      std::vector<int64_t> dims = node.attrs.get_ints(ir::Attr::dims);
      for (int64_t& d : dims) d = ir::normalize_axis(d, in_type.rank());
      return permuted(in, dims);
    }
    case ir::Op::expand:
      return expanded(in_type.shape, in, out_shape);
    case ir::Op::slice:
      return sliced_layout(node, in_type, in);
    default:
      throw Error(ErrorCode::Internal, "no view layout for op " + std::string(ir::name(node.op)));
  }
}
}  // namespace

std::optional<Layout> pushed_layout(std::span<const ir::Node* const> views, const ir::TensorType& x,
                                    const Layout& x_layout, const ir::Shape& shape) {
  ir::TensorType t{x.dtype, shape};
  std::optional<Layout> l = expanded(x.shape, x_layout, shape);
  if (ir::numel(shape) == 0) l = contiguous_layout(shape);
  for (const ir::Node* v : views) {
    l = view_layout(*v, t, *l);
    if (!l) return std::nullopt;
    t.shape = v->outputs[0].shape;
  }
  return l;
}

}  // namespace tensord::engine
