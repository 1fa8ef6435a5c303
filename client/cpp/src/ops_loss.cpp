// The losses of issue 4 (docs/ops.md); each records one composite node.
#include "client/cpp/src/recorder.h"
#include "tensord/ops.h"

namespace tensord {

using detail::record;
using ir::Attr;
using ir::Op;

namespace {

ir::Attrs with_reduction(Reduction r, ir::Attrs attrs = {}) {
  attrs.set(Attr::reduction, static_cast<int64_t>(r));
  return attrs;
}

}  // namespace

Tensor mse_loss(const Tensor& input, const Tensor& target, Reduction r, Loc loc) {
  return record(Op::mse_loss, {&input, &target}, with_reduction(r), loc);
}
Tensor l1_loss(const Tensor& input, const Tensor& target, Reduction r, Loc loc) {
  return record(Op::l1_loss, {&input, &target}, with_reduction(r), loc);
}
Tensor smooth_l1_loss(const Tensor& input, const Tensor& target, Reduction r, double beta,
                      Loc loc) {
  return record(Op::smooth_l1_loss, {&input, &target}, with_reduction(r, {{Attr::beta, beta}}),
                loc);
}
Tensor huber_loss(const Tensor& input, const Tensor& target, Reduction r, double delta, Loc loc) {
  return record(Op::huber_loss, {&input, &target}, with_reduction(r, {{Attr::delta, delta}}), loc);
}
Tensor binary_cross_entropy(const Tensor& input, const Tensor& target, Reduction r, Loc loc) {
  return record(Op::binary_cross_entropy, {&input, &target}, with_reduction(r), loc);
}
Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target, Reduction r,
                                        Loc loc) {
  return record(Op::binary_cross_entropy_with_logits, {&input, &target}, with_reduction(r), loc);
}
Tensor kl_div(const Tensor& input, const Tensor& target, Reduction r, bool log_target, Loc loc) {
  return record(Op::kl_div, {&input, &target}, with_reduction(r, {{Attr::log_target, log_target}}),
                loc);
}
Tensor cross_entropy(const Tensor& input, const Tensor& target, Reduction r, int64_t ignore_index,
                     double label_smoothing, Loc loc) {
  return record(Op::cross_entropy, {&input, &target},
                with_reduction(r, {{Attr::ignore_index, ignore_index},
                                   {Attr::label_smoothing, label_smoothing}}),
                loc);
}
Tensor nll_loss(const Tensor& input, const Tensor& target, Reduction r, int64_t ignore_index,
                Loc loc) {
  return record(Op::nll_loss, {&input, &target},
                with_reduction(r, {{Attr::ignore_index, ignore_index}}), loc);
}
Tensor cosine_similarity(const Tensor& a, const Tensor& b, int64_t axis, double eps, Loc loc) {
  return record(Op::cosine_similarity, {&a, &b}, {{Attr::axis, axis}, {Attr::eps, eps}}, loc);
}

}  // namespace tensord
