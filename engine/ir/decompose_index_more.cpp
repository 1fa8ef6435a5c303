// Composites of issue 4's remaining indexing ops (h/datadep): bucketize is searchsorted with
// the arguments swapped; scatter_value scatters a 0-d full expanded to the index's shape.
#include "engine/ir/expansion.h"

namespace tensord::ir {

ValueRef expand_index_more(Expansion& e, const Node& node, std::span<const ValueRef> in) {
  switch (node.op) {
    case Op::bucketize: {
      Attrs attrs;
      if (node.attrs.get_bool(Attr::right, false)) attrs.set(Attr::right, true);
      return e.add(Op::searchsorted, {in[1], in[0]}, std::move(attrs));
    }
    case Op::scatter_value: {
      const DType t = e.type(in[0]).dtype;
      ValueRef value = e.full({}, *node.attrs.find(Attr::value), t);
      ValueRef src = e.add(Op::expand, {value}, {{Attr::shape, e.type(in[1]).shape}});
      return e.add(Op::scatter, {in[0], in[1], src},
                   {{Attr::axis, node.attrs.get_int(Attr::axis)}});
    }
    default:
      break;
  }
  throw Error(ErrorCode::Internal, "no decomposition for " + std::string(name(node.op)));
}

}  // namespace tensord::ir
