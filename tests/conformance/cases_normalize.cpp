// Table rows for softmax, log_softmax and layer_norm.
#include "tests/conformance/case.h"
#include "tests/conformance/sweep.h"

namespace tensord::conformance {

using ir::Attr;
using ir::Attrs;
using ir::Op;

namespace {

Case normalize(Op op, Attrs attrs, std::vector<InputSpec> inputs,
               std::optional<ErrorCode> error = std::nullopt) {
  Case c;
  c.op = op;
  c.attrs = std::move(attrs);
  c.inputs = std::move(inputs);
  c.accuracy = Accuracy::Accumulated;
  c.error = error;
  return c;
}

void add_softmax(std::vector<Case>& out) {
  struct Variant {
    Shape shape;
    int64_t axis;
    Layout layout = Layout::Contiguous;
    Values values = Values::Mixed;
    std::optional<ErrorCode> error = std::nullopt;
  };
  const Variant kVariants[] = {
      {{3, 4, 5}, -1},
      {{3, 4, 5}, 0},
      {{3, 4, 5}, 1},
      {{7}, 0},
      {{33, 65}, 1},
      {{0, 4}, 1},
      {{3, 0}, 1},  // an empty axis gives an empty result, no error
      {{5, 7}, 1, Layout::Permuted},
      {{5, 7}, 0, Layout::Strided},
      {{5, 7}, 1, Layout::Reversed},
      {{5, 7}, 1, Layout::Broadcast},
      {{5, 7}, 0, Layout::Mixed},
      {{5, 13}, 1, Layout::Contiguous, Values::Special},
      {big_shape(), 1},
      {big_shape(), 0},
      {{3, 4}, 2, Layout::Contiguous, Values::Mixed, ErrorCode::Shape},
      {{}, 0, Layout::Contiguous, Values::Mixed, ErrorCode::Shape},  // 0-d has no axes
  };
  for (Op op : {Op::softmax, Op::log_softmax}) {
    for (DType t : kAllDTypes) {
      if (!ir::is_floating(t)) {
        out.push_back(normalize(op, {{Attr::axis, int64_t{0}}}, {in(t, {3})}, ErrorCode::DType));
        continue;
      }
      for (const Variant& v : kVariants) {
        out.push_back(
            normalize(op, {{Attr::axis, v.axis}}, {in(t, v.shape, v.layout, v.values)}, v.error));
      }
    }
  }
}

void add_layer_norm(std::vector<Case>& out) {
  auto nd = [](int64_t n) { return Attrs{{Attr::normalized_ndim, n}}; };
  auto nd_eps = [](int64_t n, double eps) {
    return Attrs{{Attr::normalized_ndim, n}, {Attr::eps, eps}};
  };
  for (DType t : kFloatDTypes) {
    auto x = [t](Shape s, Layout l = Layout::Contiguous, Values v = Values::Mixed) {
      return in(t, std::move(s), l, v);
    };
    out.push_back(normalize(Op::layer_norm, nd(1), {x({4, 6}), x({6}), x({6})}));
    out.push_back(normalize(Op::layer_norm, nd(1), {x({4, 6})}));
    out.push_back(normalize(Op::layer_norm, nd(1), {x({4, 6}), x({6})}));
    out.push_back(normalize(Op::layer_norm, nd(2), {x({2, 3, 8}), x({3, 8}), x({3, 8})}));
    out.push_back(normalize(Op::layer_norm, nd(3), {x({2, 3, 8})}));
    out.push_back(normalize(Op::layer_norm, nd_eps(1, 0.1), {x({5, 33}), x({33}), x({33})}));
    out.push_back(normalize(Op::layer_norm, nd(1), {x({7})}));
    out.push_back(normalize(Op::layer_norm, nd(1), {x({0, 6}), x({6}), x({6})}));
    out.push_back(normalize(Op::layer_norm, nd(1),
                            {x({5, 7}, Layout::Permuted), x({7}, Layout::Reversed), x({7})}));
    out.push_back(
        normalize(Op::layer_norm, nd(2), {x({5, 7}, Layout::Mixed), x({5, 7}, Layout::Strided)}));
    out.push_back(normalize(Op::layer_norm, nd(1), {x({5, 7}, Layout::Broadcast), x({7})}));
    out.push_back(
        normalize(Op::layer_norm, nd(1), {x({5, 13}, Layout::Contiguous, Values::Edge), x({13})}));
    out.push_back(normalize(Op::layer_norm, nd(1), {x({300, 257}), x({257}), x({257})}));
    out.push_back(normalize(Op::layer_norm, nd(0), {x({4, 6})}, ErrorCode::Shape));
    out.push_back(normalize(Op::layer_norm, nd(3), {x({4, 6})}, ErrorCode::Shape));
    out.push_back(normalize(Op::layer_norm, nd(1), {x({4, 6}), x({4})}, ErrorCode::Shape));
    out.push_back(
        normalize(Op::layer_norm, nd(1), {x({4, 6}), x({6}), x({1, 6})}, ErrorCode::Shape));
  }
  // Promotion of all inputs: float16 x with float32 weight gives float32.
  out.push_back(
      normalize(Op::layer_norm, nd(1),
                {in(DType::Float16, {4, 6}), in(DType::Float32, {6}), in(DType::Float32, {6})}));
  out.push_back(
      normalize(Op::layer_norm, nd(1), {in(DType::BFloat16, {4, 6}), in(DType::Float16, {6})}));
  for (DType t : {DType::Int32, DType::Bool, DType::UInt8}) {
    out.push_back(normalize(Op::layer_norm, nd(1), {in(t, {4, 6})}, ErrorCode::DType));
  }
  out.push_back(normalize(Op::layer_norm, nd(1),
                          {in(DType::Float32, {4, 6}), in(DType::Int64, {6})}, ErrorCode::DType));
}

}  // namespace

void add_normalize_cases(std::vector<Case>& out) {
  add_softmax(out);
  add_layer_norm(out);
}

}  // namespace tensord::conformance
