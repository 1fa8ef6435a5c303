// Ops with several outputs (docs/ops.md): each output is its own Tensor over one recorded node.
#include "client/cpp/src/recorder.h"
#include "tensord/ops.h"

namespace tensord {

using ir::Op;

Frexp frexp(const Tensor& x, Loc loc) {
  std::vector<Tensor> out = detail::record_multi(Op::frexp, {&x, 1}, {}, loc);
  return Frexp{std::move(out[0]), std::move(out[1])};
}

}  // namespace tensord
