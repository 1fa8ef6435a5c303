// Kernels of the ops with several outputs (ops.def's last section): each writes every output
// of its node in one pass.
#include <cmath>

#include "engine/backends/cpu/elementwise.h"
#include "engine/backends/cpu/kernels.h"

namespace tensord::cpu {
namespace {

using ir::Op;

// x = mantissa * 2^exponent with 0.5 <= |mantissa| < 1; non-finite x keeps itself as mantissa
// with exponent 0 (NumPy's and PyTorch's choice; C leaves the exponent unspecified).
template <typename T>
void frexp_row(char* const* p, const int64_t* s, int64_t n) {
  for (int64_t k = 0; k < n; ++k) {
    const auto x = static_cast<ComputeT<T>>(at<T>(p[2], s[2], k));
    int e = 0;
    const ComputeT<T> m = std::isfinite(x) ? std::frexp(x, &e) : x;
    at<T>(p[0], s[0], k) = static_cast<T>(m);
    at<int32_t>(p[1], s[1], k) = static_cast<int32_t>(e);
  }
}

void run_frexp(const KernelContext& ctx, const TensorValue& in,
               std::span<const TensorValue> outputs) {
  const Operand ops[3] = {operand_of(outputs[0]), operand_of(outputs[1]), operand_of(in)};
  visit_dtype(in.type.dtype, [&]<typename T>(TypeTag<T>) {
    if constexpr (kIsFloat<T>) {
      launch(ctx.threads, ops,
             [](char* const* p, const int64_t* s, int64_t n) { frexp_row<T>(p, s, n); });
    } else {
      throw_unsupported(Op::frexp, in.type.dtype);
    }
  });
}

}  // namespace

void run_multi_output(const KernelContext& ctx, const ir::Node& node,
                      std::span<const TensorValue> inputs, std::span<const TensorValue> outputs) {
  if (is_sort_multi(node.op)) return run_sort_multi(ctx, node, inputs, outputs);  // issue 4
  if (is_linalg(node.op)) return run_linalg_multi(ctx, node, inputs, outputs);
  if (is_nn(node.op)) return run_pool(ctx, node, inputs[0], outputs);  // return_indices
  switch (node.op) {
    case Op::frexp:
      return run_frexp(ctx, inputs[0], outputs);
    default:
      break;
  }
  throw Error(ErrorCode::Unsupported, "the CPU backend has no kernel for " +
                                          std::string(ir::name(node.op)) + " with " +
                                          std::to_string(outputs.size()) + " outputs");
}

}  // namespace tensord::cpu
