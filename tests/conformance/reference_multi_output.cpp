// The float64 reference of the ops with several outputs: each call returns one output, the one
// the row checks (Case::output).
#include <cmath>
#include <stdexcept>
#include <string>

#include "tests/conformance/reference.h"

namespace tensord::conformance {

using ir::Op;

namespace {

// Straight from the definition: scale by powers of two until 0.5 <= |m| < 1 (exact in binary
// floating point), rather than calling the std::frexp the kernel uses.
Expected ref_frexp(const RefTensor& x, uint32_t output) {
  if (!x.floating()) reject(ErrorCode::DType, "frexp needs a floating-point input");
  RefTensor out(output == 0 ? x.dtype : DType::Int32, x.shape);
  for (int64_t k = 0; k < x.numel(); ++k) {
    double m = x.f[k];
    int64_t e = 0;
    if (std::isfinite(m) && m != 0) {
      while (std::fabs(m) >= 1) {
        m /= 2;
        ++e;
      }
      while (std::fabs(m) < 0.5) {
        m *= 2;
        --e;
      }
    }
    out.put(k, output == 0 ? Num::of_float(m) : Num::of_int(e));
  }
  return out;
}

}  // namespace

bool is_multi_output(Op op) {
  switch (op) {  // issue 4: sorting's (values, indices) ops
    case Op::sort:
    case Op::topk:
    case Op::kthvalue:
    case Op::median_axis:
    case Op::nanmedian_axis:
    case Op::mode:
    case Op::cummax:
    case Op::cummin:
      return true;
    default:
      break;
  }
  return op == Op::frexp || op == Op::slogdet || op == Op::qr || op == Op::svd || op == Op::eigh ||
         op == Op::lstsq || op == Op::unique;
}

Expected ref_multi_output(Op op, std::span<const RefTensor> inputs, const ir::Attrs& attrs,
                          uint32_t output) {
  switch (op) {
    case Op::sort:  // issue 4: sorting's (values, indices) ops (reference_sort.cpp)
    case Op::topk:
    case Op::kthvalue:
    case Op::median_axis:
    case Op::nanmedian_axis:
    case Op::mode:
    case Op::cummax:
    case Op::cummin:
      if (output > 1) break;
      return ref_sort_multi(op, inputs, attrs, output);
    case Op::frexp:
      if (output > 1) break;
      return ref_frexp(inputs[0], output);
    case Op::unique:  // reference_index_more.cpp
      if (output > 3) break;
      return ref_unique(inputs, output);
    case Op::slogdet:
    case Op::qr:
    case Op::svd:
    case Op::eigh:  // reference_linalg.cpp
    case Op::lstsq:
      if (output > (op == Op::lstsq ? 3u : op == Op::svd ? 2u : 1u)) break;
      return ref_linalg_multi(op, inputs, attrs, output);
    default:
      break;
  }
  throw std::logic_error("table bug: " + std::string(ir::name(op)) + " has no output " +
                         std::to_string(output));
}

}  // namespace tensord::conformance
