// Table rows for the losses: each reduction (none, mean, sum; kl_div also batchmean) over float
// dtypes, broadcasting and non-contiguous inputs, attribute variants, class-index targets with
// ignore_index and label smoothing, probability targets, and the errors docs/ops.md lists.
#include <cmath>

#include "tests/conformance/case.h"
#include "tests/conformance/sweep.h"

namespace tensord::conformance {

using ir::Attr;
using ir::Attrs;
using ir::Op;

namespace {

Case make(Op op, std::vector<InputSpec> inputs, Attrs attrs = {}) {
  Case c;
  c.op = op;
  c.inputs = std::move(inputs);
  c.attrs = std::move(attrs);
  c.accuracy = Accuracy::Accumulated;
  return c;
}

Attrs with(Attrs a, Attr k, ir::AttrValue v) {
  a.set(k, std::move(v));
  return a;
}

const std::vector<double> kProbs = {0.1, 0.5, 0.9, 0.0, 1.0, 0.3, 0.999, 1e-4, 0.75};
const std::vector<double> kLabels = {0.0, 1.0, 0.5, 1.0, 0.0, 0.25, 1.0};
const std::vector<double> kTargets = {0.0, 0.1, 0.5, 1.0, 0.25, 2.0, 0.0};

// Inputs of one pointwise loss for dtype t and shapes a, b.
std::vector<InputSpec> operands(Op op, DType t, Shape a, Shape b, Layout la, Layout lb) {
  if (op == Op::binary_cross_entropy) {
    InputSpec p = in_values(t, a, kProbs), y = in_values(t, b, kLabels);
    p.layout = la;
    y.layout = lb;
    return {p, y};
  }
  if (op == Op::kl_div) {
    InputSpec y = in_values(t, b, kTargets);
    y.layout = lb;
    return {in(t, a, la, Values::Small), y};
  }
  return {in(t, a, la, Values::Mixed), in(t, b, lb, Values::Mixed)};
}

void add_pointwise_losses(std::vector<Case>& out) {
  struct Row {
    Op op;
    std::vector<Attrs> variants;
  };
  const Row rows[] = {
      {Op::mse_loss, {{}}},
      {Op::l1_loss, {{}}},
      {Op::smooth_l1_loss, {{}, {{Attr::beta, 0.5}}, {{Attr::beta, 0.0}}}},
      {Op::huber_loss, {{}, {{Attr::delta, 2.5}}}},
      {Op::binary_cross_entropy, {{}}},
      {Op::binary_cross_entropy_with_logits, {{}}},
      {Op::kl_div, {{}, {{Attr::log_target, true}}}},
  };
  struct Pair {
    Shape a, b;
    Layout la = Layout::Contiguous, lb = Layout::Contiguous;
  };
  const Pair pairs[] = {
      {{}, {}},
      {{0}, {0}},
      {{33}, {33}},
      {{3, 1}, {1, 4}},
      {{5, 7}, {5, 7}, Layout::Permuted, Layout::Strided},
      {{4, 6}, {4, 6}, Layout::Mixed, Layout::Reversed},
      {big_shape(), big_shape()},
  };
  for (const Row& row : rows) {
    const bool same_shape =
        row.op == Op::binary_cross_entropy || row.op == Op::binary_cross_entropy_with_logits;
    const int64_t top = row.op == Op::kl_div ? 3 : 2;
    for (DType t : kAllDTypes) {
      if (!ir::is_floating(t)) {
        Case c = make(row.op, {in(t, {3}), in(t, {3})});
        c.error = ErrorCode::DType;
        out.push_back(std::move(c));
        continue;
      }
      for (size_t v = 0; v < row.variants.size(); ++v) {
        for (int64_t r = 0; r <= top; ++r) {
          for (const Pair& p : pairs) {
            if (same_shape && p.a != p.b) continue;
            if ((v > 0 || r != 1) && p.a.size() > 1 && p.a != big_shape()) continue;
            out.push_back(make(row.op, operands(row.op, t, p.a, p.b, p.la, p.lb),
                               with(row.variants[v], Attr::reduction, r)));
          }
        }
      }
    }
    Case bad_code = make(row.op, {in(DType::Float32, {3}), in(DType::Float32, {3})},
                         {{Attr::reduction, top + 1}});
    bad_code.error = ErrorCode::InvalidGraph;
    out.push_back(std::move(bad_code));
    Case bad_shape = make(row.op, {in(DType::Float32, {3}), in(DType::Float32, {4})});
    bad_shape.error = ErrorCode::Shape;
    out.push_back(std::move(bad_shape));
  }
  for (DType t : kFloatDTypes) {
    const std::vector<double> x = {-100.0, -20.0, -1.0, 0.0, 1.0, 20.0, 100.0, 0.5};
    const std::vector<double> y = {0.0, 1.0, 0.5, 1.0, 0.0, 1.0, 0.0, 0.25};
    Case c = make(Op::binary_cross_entropy_with_logits,
                  {in_values(t, {8}, x), in_values(t, {8}, y)}, {{Attr::reduction, int64_t{0}}});
    c.note = "large logits";
    out.push_back(std::move(c));
  }
  Case beta = make(Op::smooth_l1_loss, {in(DType::Float32, {3}), in(DType::Float32, {3})},
                   {{Attr::beta, -1.0}});
  beta.error = ErrorCode::Shape;
  out.push_back(std::move(beta));
  Case delta = make(Op::huber_loss, {in(DType::Float32, {3}), in(DType::Float32, {3})},
                    {{Attr::delta, 0.0}});
  delta.error = ErrorCode::Shape;
  out.push_back(std::move(delta));
}

void add_classification_losses(std::vector<Case>& out) {
  struct Shapes {
    Shape x, target;
    Layout layout = Layout::Contiguous;
  };
  const Shapes shapes[] = {
      {{4, 5}, {4}},
      {{5}, {}},
      {{2, 3, 4}, {2, 4}},
      {{0, 3}, {0}},
      {{6, 5}, {6}, Layout::Permuted},
      {{257, 263}, {257}},
  };
  for (Op op : {Op::cross_entropy, Op::nll_loss}) {
    for (DType t : kFloatDTypes) {
      for (int64_t r = 0; r <= 2; ++r) {
        for (const Shapes& s : shapes) {
          const int64_t classes = s.x.size() >= 2 ? s.x[1] : s.x[0];
          for (DType it : {DType::Int64, DType::Int32}) {
            out.push_back(make(op, {in(t, s.x, s.layout), in_index(it, s.target, classes)},
                               {{Attr::reduction, r}}));
          }
        }
        // ignore_index: class 1 is ignored (and not counted by the mean).
        out.push_back(make(op, {in(t, {6, 4}), in_values(DType::Int64, {6}, {1, 0, 3, 1, 2, 1})},
                           {{Attr::reduction, r}, {Attr::ignore_index, int64_t{1}}}));
        out.push_back(make(op, {in(t, {3, 4}), in_values(DType::Int64, {3}, {-100, -100, -100})},
                           {{Attr::reduction, r}}));
      }
      if (op == Op::cross_entropy) {
        for (const Attrs& a :
             {Attrs{}, Attrs{{Attr::label_smoothing, 0.1}},
              Attrs{{Attr::reduction, int64_t{0}}, {Attr::label_smoothing, 0.3}}}) {
          out.push_back(make(op, {in(t, {4, 5}), in_index(DType::Int64, {4}, 5)}, a));
          out.push_back(
              make(op, {in(t, {2, 3, 4}), in(t, {2, 3, 4}, Layout::Contiguous, Values::Positive)},
                   a));  // probabilities
          out.push_back(
              make(op, {in(t, {5}), in(t, {5}, Layout::Contiguous, Values::Positive)}, a));
        }
      }
    }
    Case oob = make(op, {in(DType::Float32, {2, 5}), in_values(DType::Int64, {2}, {0, 7})});
    oob.error = ErrorCode::Shape;
    oob.note = "class 7 of 5";
    out.push_back(std::move(oob));
    for (auto [x, tt] : {std::pair<Shape, Shape>{{4, 5}, {5}}, {{}, {}}, {{4, 0}, {4}}}) {
      Case c = make(op, {in(DType::Float32, x), in(DType::Int64, tt)});
      c.error = ErrorCode::Shape;
      out.push_back(std::move(c));
    }
    Case ints = make(op, {in(DType::Int32, {4, 5}), in(DType::Int64, {4})});
    ints.error = ErrorCode::DType;
    out.push_back(std::move(ints));
    Case bools = make(op, {in(DType::Float32, {4, 5}), in(DType::Bool, {4})});
    bools.error = ErrorCode::DType;
    out.push_back(std::move(bools));
  }
  Case nll_probs = make(Op::nll_loss, {in(DType::Float32, {4, 5}), in(DType::Float32, {4, 5})});
  nll_probs.error = ErrorCode::DType;
  out.push_back(std::move(nll_probs));
  Case smooth =
      make(Op::cross_entropy, {in(DType::Float32, {4, 5}), in_index(DType::Int64, {4}, 5)},
           {{Attr::label_smoothing, 1.5}});
  smooth.error = ErrorCode::Shape;
  out.push_back(std::move(smooth));
}

void add_cosine_cases(std::vector<Case>& out) {
  for (DType t : kAllDTypes) {
    out.push_back(make(Op::cosine_similarity, {in(t, {4, 5}, Layout::Contiguous, Values::Small),
                                               in(t, {4, 5}, Layout::Contiguous, Values::Small)}));
    out.push_back(make(Op::cosine_similarity,
                       {in(t, {3, 1, 4}, Layout::Contiguous, Values::Small),
                        in(t, {1, 5, 4}, Layout::Contiguous, Values::Small)},
                       {{Attr::axis, int64_t{-1}}}));
  }
  for (DType t : kFloatDTypes) {
    out.push_back(make(Op::cosine_similarity, {in(t, {0, 3}), in(t, {0, 3})}));
    out.push_back(
        make(Op::cosine_similarity, {in(t, {7}), in(t, {7})}, {{Attr::axis, int64_t{0}}}));
    out.push_back(make(Op::cosine_similarity, {in(t, {6, 5}, Layout::Permuted), in(t, {5})},
                       {{Attr::axis, int64_t{0}}, {Attr::eps, 1e-3}}));
    out.push_back(make(Op::cosine_similarity,
                       {in_values(t, {2, 3}, {0.0, 0.0, 0.0, 1.0, 2.0, 3.0}), in(t, {2, 3})}));
    out.push_back(make(Op::cosine_similarity, {in(t, big_shape()), in(t, big_shape())}));
    // Over a leading axis of size 1: the norms' column sums then have the input's shape, and a
    // fused kernel read them inside the pass that computes them (found by random graphs).
    out.push_back(make(Op::cosine_similarity, {in(t, {1, 2, 1}), in(t, {1, 2, 1})},
                       {{Attr::axis, int64_t{-3}}}));
    out.push_back(make(Op::cosine_similarity, {in(t, {1, 6, 5}), in(t, {1, 6, 5})},
                       {{Attr::axis, int64_t{0}}}));
  }
  Case scalar = make(Op::cosine_similarity, {in(DType::Float32, {}), in(DType::Float32, {})});
  scalar.error = ErrorCode::Shape;
  out.push_back(std::move(scalar));
}

}  // namespace

void add_loss_cases(std::vector<Case>& out) {
  add_pointwise_losses(out);
  add_classification_losses(out);
  add_cosine_cases(out);
}

}  // namespace tensord::conformance
