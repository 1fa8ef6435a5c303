// Inference of the ops with several outputs (ops.def's last section).
#include "engine/ir/infer_internal.h"

namespace tensord::ir::detail {

std::vector<TensorType> infer_multi_output(Op op, Inputs in, const Attrs& /*attrs*/) {
  switch (op) {
    case Op::frexp: {
      // (mantissa, exponent) as torch.frexp and np.frexp: x = mantissa * 2^exponent.
      require_floating(op, in[0]->dtype);
      std::vector<TensorType> out = result(in[0]->dtype, in[0]->shape);
      out.push_back(TensorType{DType::Int32, in[0]->shape});
      return out;
    }
    default:
      break;
  }
  fail(ErrorCode::Internal, "no inference for op " + std::string(name(op)));
}

}  // namespace tensord::ir::detail
