// Which family of decompose_*.cpp expands each composite of issue 4.
#include "engine/ir/expansion.h"

namespace tensord::ir {

ValueRef expand_issue4(Expansion& e, const Node& node, std::span<const ValueRef> in) {
  switch (node.op) {
    case Op::lerp:
    case Op::addcmul:
    case Op::addcdiv:
      return expand_pointwise(e, node, in);
    case Op::celu:
    case Op::elu:
    case Op::selu:
    case Op::leaky_relu:
    case Op::hardtanh:
    case Op::hardsigmoid:
    case Op::hardswish:
    case Op::softplus:
    case Op::softsign:
    case Op::mish:
    case Op::prelu:
    case Op::glu:
      return expand_activation(e, node, in);
    case Op::all:
    case Op::any:
    case Op::count_nonzero:
    case Op::amax:
    case Op::amin:
    case Op::nansum:
    case Op::nanmean:
    case Op::std:
    case Op::logsumexp:
    case Op::norm:
      return expand_reduction(e, node, in);
    case Op::mse_loss:
    case Op::l1_loss:
    case Op::smooth_l1_loss:
    case Op::huber_loss:
    case Op::binary_cross_entropy:
    case Op::binary_cross_entropy_with_logits:
    case Op::kl_div:
    case Op::cross_entropy:
    case Op::nll_loss:
    case Op::cosine_similarity:
      return expand_loss(e, node, in);
    case Op::tril:
    case Op::triu:
    case Op::roll:
    case Op::tile:
    case Op::repeat_interleave:
    case Op::narrow:
    case Op::take:
    case Op::take_along_dim:
    case Op::masked_fill:
    case Op::one_hot:
    case Op::rot90:
    case Op::diagonal:
    case Op::diag_embed:
    case Op::diag:
      return expand_shape_op(e, node, in);
    case Op::expit:
      return e.unary(Op::sigmoid, in[0]);
    // linear algebra (decompose_linalg.cpp)
    case Op::trace:
    case Op::outer:
    case Op::kron:
    case Op::cross:
    case Op::matrix_norm:
    case Op::matrix_power:
      return expand_linalg(e, node, in);
    case Op::index_add: {
      // scatter_add with the 1-D index expanded to the source's shape along `axis`.
      const Shape src_shape = e.type(in[2]).shape;
      const int64_t axis = normalize_axis(node.attrs.get_int(Attr::axis), e.type(in[0]).rank());
      Shape column(src_shape.size(), 1);
      column[axis] = src_shape[axis];
      ValueRef index = e.add(Op::expand, {e.reshape(in[1], column)}, {{Attr::shape, src_shape}});
      ValueRef src = in[2];
      if (const AttrValue* alpha = node.attrs.find(Attr::alpha)) {
        const DType t = compute_dtype(e.type(in[0]).dtype);
        src = e.cast(e.binary(Op::mul, e.cast(src, t), e.full({}, *alpha, t)), e.type(in[0]).dtype);
      }
      return e.add(Op::scatter_add, {in[0], index, src}, {{Attr::axis, axis}});
    }
    // issue 4 (h/datadep)
    case Op::bucketize:
    case Op::scatter_value:
      return expand_index_more(e, node, in);
    // issue 4: neural-network composites (decompose_nn.cpp)
    case Op::linear:
    case Op::embedding:
    case Op::rms_norm:
    case Op::batch_norm:
    case Op::group_norm:
    case Op::instance_norm:
    case Op::scaled_dot_product_attention:
    case Op::dropout:
    case Op::pixel_shuffle:
    case Op::pixel_unshuffle:
    case Op::max_unpool:
      return expand_nn(e, node, in);
    default:
      break;
  }
  throw Error(ErrorCode::Internal, "no decomposition for " + std::string(name(node.op)));
}

}  // namespace tensord::ir
