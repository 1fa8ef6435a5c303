// lerp, addcmul and addcdiv (docs/ops.md): broadcasting formulas over three inputs, computed in
// the result's compute dtype (float16/bfloat16 in float32, rounded once at the end).
#include "engine/ir/expansion.h"

namespace tensord::ir {
namespace {

// PyTorch's lerp: exact at both ends (w = 0 gives a, w = 1 gives b) and monotone.
ValueRef lerp(Expansion& e, std::span<const ValueRef> in, DType out) {
  const DType c = compute_dtype(out);
  ValueRef a = e.cast(in[0], c), b = e.cast(in[1], c), w = e.cast(in[2], c);
  ValueRef d = e.binary(Op::sub, b, a);
  ValueRef from_a = e.binary(Op::add, a, e.binary(Op::mul, w, d));
  ValueRef from_b =
      e.binary(Op::sub, b, e.binary(Op::mul, d, e.binary(Op::sub, e.scalar(1.0, c), w)));
  ValueRef near_a = e.binary(Op::lt, e.unary(Op::abs, w), e.scalar(0.5, c));
  return e.cast(e.where(near_a, from_a, from_b), out);
}

// x + value * (t1 op t2); an absent value is 1 and adds no node. For integers the value is cast
// to the dtype like any scalar.
ValueRef addc(Expansion& e, Op op, std::span<const ValueRef> in, const Attrs& attrs, DType out) {
  const DType c = compute_dtype(out);
  ValueRef x = e.cast(in[0], c);
  ValueRef term = e.binary(op, e.cast(in[1], c), e.cast(in[2], c));
  if (const AttrValue* value = attrs.find(Attr::value)) {
    term = e.binary(Op::mul, e.full({}, *value, c), term);
  }
  return e.cast(e.binary(Op::add, x, term), out);
}

}  // namespace

ValueRef expand_pointwise(Expansion& e, const Node& node, std::span<const ValueRef> in) {
  const DType out = node.outputs[0].dtype;
  switch (node.op) {
    case Op::lerp:
      return lerp(e, in, out);
    case Op::addcmul:
      return addc(e, Op::mul, in, node.attrs, out);
    case Op::addcdiv:
      return addc(e, Op::div, in, node.attrs, out);
    default:
      break;
  }
  throw Error(ErrorCode::Internal, "no pointwise decomposition for " + std::string(name(node.op)));
}

}  // namespace tensord::ir
