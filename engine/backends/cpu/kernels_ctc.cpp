// ctc_loss (docs/ops.md "Neural-network ops"): the forward (alpha) recursion of connectionist
// temporal classification in log space, in double, per sample; then PyTorch's reduction (mean:
// each loss divided by its target length (at least 1), then the batch mean; sum). Lengths and
// target classes are checked when the kernel runs (Shape error).
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "engine/backends/cpu/host_buffer.h"
#include "engine/backends/cpu/kernels.h"

namespace tensord::cpu {
namespace {

using ir::Attr;

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

double log_add(double a, double b) {
  if (a == kNegInf) return b;
  if (b == kNegInf) return a;
  const double m = std::max(a, b);
  return m + std::log1p(std::exp(-std::fabs(a - b)));
}

TensorValue as_dense(const KernelContext& ctx, const TensorValue& v, ir::DType t) {
  return make_contiguous(ctx, cast_to(ctx, v, t));
}

[[noreturn]] void bad(const std::string& why) {
  throw Error(ErrorCode::Shape, "ctc_loss: " + why);
}

}  // namespace

void run_ctc_loss(const KernelContext& ctx, const ir::Node& node,
                  std::span<const TensorValue> inputs, const TensorValue& out) {
  if (inputs.size() != 4) throw Error(ErrorCode::Internal, "ctc_loss takes 4 inputs");
  const TensorValue lp = as_dense(ctx, inputs[0], ir::DType::Float64);
  const TensorValue tg = as_dense(ctx, inputs[1], ir::DType::Int64);
  const TensorValue il = as_dense(ctx, inputs[2], ir::DType::Int64);
  const TensorValue tl = as_dense(ctx, inputs[3], ir::DType::Int64);
  const int64_t t_max = lp.type.shape[0], n = lp.type.shape[1], c = lp.type.shape[2];
  const int64_t s_max = tg.type.shape[1];
  const int64_t blank = node.attrs.get_int(Attr::blank, 0);
  const int64_t reduction = node.attrs.get_int(Attr::reduction, 1);
  const bool zero_inf = node.attrs.get_bool(Attr::zero_infinity, false);
  const double* x = lp.data<double>();
  const int64_t* targets = tg.data<int64_t>();
  std::vector<double> losses(static_cast<size_t>(n));
  for (int64_t b = 0; b < n; ++b) {
    const int64_t steps = il.data<int64_t>()[b], len = tl.data<int64_t>()[b];
    if (steps < 0 || steps > t_max) {
      bad("input length " + std::to_string(steps) + " outside [0, " + std::to_string(t_max) + "]");
    }
    if (len < 0 || len > s_max) {
      bad("target length " + std::to_string(len) + " outside [0, " + std::to_string(s_max) + "]");
    }
    // The extended label sequence: blank, l1, blank, l2, ..., blank.
    std::vector<int64_t> ext(static_cast<size_t>(2 * len + 1), blank);
    for (int64_t s = 0; s < len; ++s) {
      const int64_t k = targets[b * s_max + s];
      if (k < 0 || k >= c)
        bad("target class " + std::to_string(k) + " outside [0, " + std::to_string(c) + ")");
      ext[2 * s + 1] = k;
    }
    const auto width = static_cast<int64_t>(ext.size());
    auto logp = [&](int64_t t, int64_t k) { return x[(t * n + b) * c + k]; };
    double nll;
    if (steps == 0) {
      nll = len == 0 ? 0.0 : std::numeric_limits<double>::infinity();
    } else {
      std::vector<double> alpha(static_cast<size_t>(width), kNegInf), next(alpha.size());
      alpha[0] = logp(0, ext[0]);
      if (width > 1) alpha[1] = logp(0, ext[1]);
      for (int64_t t = 1; t < steps; ++t) {
        for (int64_t s = 0; s < width; ++s) {
          double a = alpha[s];
          if (s >= 1) a = log_add(a, alpha[s - 1]);
          if (s >= 2 && ext[s] != blank && ext[s] != ext[s - 2]) a = log_add(a, alpha[s - 2]);
          next[s] = a == kNegInf ? kNegInf : a + logp(t, ext[s]);
        }
        alpha.swap(next);
      }
      double total = alpha[width - 1];
      if (width > 1) total = log_add(total, alpha[width - 2]);
      nll = -total;
    }
    if (zero_inf && std::isinf(nll)) nll = 0;
    losses[b] = nll;
  }
  TensorValue result =
      allocate_value(ctx.scratch, ir::TensorType{ir::DType::Float64, out.type.shape});
  double* y = result.data<double>();
  if (reduction == 0) {
    std::copy(losses.begin(), losses.end(), y);
  } else {
    double total = 0;
    for (int64_t b = 0; b < n; ++b) {
      total += reduction == 1
                   ? losses[b] / static_cast<double>(std::max<int64_t>(1, tl.data<int64_t>()[b]))
                   : losses[b];
    }
    y[0] = reduction == 1 ? total / static_cast<double>(n) : total;
  }
  cast_into(ctx, operand_of(result), operand_of(out));
}

}  // namespace tensord::cpu
