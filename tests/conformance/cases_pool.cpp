// Table rows for pooling (issue 4): window pools (max with dilation and indices, average with
// both divisors and an override) and adaptive pools (max with indices, average) over 1 to 3 spatial
// axes, every float dtype, channels-last and permuted inputs, ceil_mode, strides above the input,
// empty batches, NaN/inf and ties (the indices follow PyTorch's first maximum and last NaN);
// max_unpool with repeated and negative indices; and the errors docs/ops.md lists.
#include "tests/conformance/case.h"

namespace tensord::conformance {

using ir::Attr;
using ir::Attrs;
using ir::Op;

namespace {

using I = std::vector<int64_t>;

Case make(Op op, std::vector<InputSpec> inputs, Attrs attrs, Accuracy accuracy,
          uint32_t output = 0) {
  Case c;
  c.op = op;
  c.inputs = std::move(inputs);
  c.attrs = std::move(attrs);
  c.accuracy = accuracy;
  c.output = output;
  return c;
}

Case error(Op op, std::vector<InputSpec> inputs, Attrs attrs, ErrorCode code, std::string note) {
  Case c = make(op, std::move(inputs), std::move(attrs), Accuracy::Exact);
  c.error = code;
  c.note = std::move(note);
  return c;
}

bool is_max(Op op) {
  return op == Op::max_pool1d || op == Op::max_pool2d || op == Op::max_pool3d ||
         op == Op::adaptive_max_pool1d || op == Op::adaptive_max_pool2d ||
         op == Op::adaptive_max_pool3d;
}

struct Row {
  Op op;
  Shape x;
  Attrs attrs;
  Layout layout = Layout::Contiguous;
  Values values = Values::Mixed;
};

// Each row on every float dtype; a max pool's row with return_indices checks both outputs.
void add_rows(std::vector<Case>& out, const std::vector<Row>& rows) {
  for (const Row& r : rows) {
    const bool indices = r.attrs.get_bool(Attr::return_indices, false);
    for (DType t : kFloatDTypes) {
      const InputSpec x{t, r.x, r.layout, r.values, 0, {}};
      const Accuracy a = is_max(r.op) ? Accuracy::Exact : Accuracy::Accumulated;
      out.push_back(make(r.op, {x}, r.attrs, a));
      if (indices) out.push_back(make(r.op, {x}, r.attrs, Accuracy::Exact, 1));
    }
  }
}

Attrs with_indices(Attrs a) {
  a.set(Attr::return_indices, true);
  return a;
}

void add_window_pools(std::vector<Case>& out) {
  const Attrs k3{{Attr::kernel, I{3}}};
  const Attrs odd{{Attr::kernel, I{3, 2}},
                  {Attr::stride, I{2, 1}},
                  {Attr::padding, I{1}},
                  {Attr::ceil_mode, true}};
  const Attrs dilated1{{Attr::kernel, I{4}},
                       {Attr::stride, I{2}},
                       {Attr::padding, I{2}},
                       {Attr::dilation, I{2}},
                       {Attr::ceil_mode, true}};
  const Attrs dilated2{{Attr::kernel, I{3}}, {Attr::dilation, I{2}}, {Attr::padding, I{1}}};
  const Attrs dilated3{{Attr::kernel, I{2, 3, 2}},
                       {Attr::stride, I{1, 2, 2}},
                       {Attr::padding, I{1, 1, 0}},
                       {Attr::dilation, I{2, 1, 1}},
                       {Attr::ceil_mode, true}};
  // A window of dilation 3 over an input of 2 holds no element: -inf at index -1.
  const Attrs empty_window{
      {Attr::kernel, I{2}}, {Attr::padding, I{1}}, {Attr::dilation, I{3}}, {Attr::stride, I{1}}};
  const Attrs avg_exclude{{Attr::kernel, I{3}},
                          {Attr::stride, I{2}},
                          {Attr::padding, I{1}},
                          {Attr::ceil_mode, true},
                          {Attr::count_include_pad, false}};
  add_rows(
      out,
      {
          {Op::max_pool1d, {2, 3, 10}, k3},
          {Op::max_pool1d, {3, 11}, with_indices(dilated1)},
          {Op::max_pool1d, {2, 2, 9}, {{Attr::kernel, I{2}}}, Layout::Contiguous, Values::Special},
          {Op::max_pool1d,
           {2, 2, 9},
           with_indices({{Attr::kernel, I{2}}}),
           Layout::Contiguous,
           Values::Special},
          {Op::max_pool1d, {1, 2, 2}, with_indices(empty_window)},
          {Op::max_pool2d, {2, 3, 7, 8}, {{Attr::kernel, I{2}}}},
          {Op::max_pool2d, {2, 3, 7, 8}, odd, Layout::ChannelsLast},
          {Op::max_pool2d, {2, 3, 7, 8}, with_indices(odd), Layout::ChannelsLast, Values::Halves},
          {Op::max_pool2d, {1, 2, 6, 6}, {{Attr::kernel, I{1}}}},  // 1x1
          {Op::max_pool2d, {0, 2, 6, 6}, with_indices({{Attr::kernel, I{2}}})},
          {Op::max_pool2d, {2, 5, 5}, {{Attr::kernel, I{3}}, {Attr::stride, I{9}}}},
          {Op::max_pool2d, {1, 2, 9, 9}, dilated2, Layout::Permuted},
          {Op::max_pool2d, {1, 2, 9, 9}, with_indices(dilated2), Layout::Permuted},
          {Op::max_pool2d,
           {2, 2, 6, 7},
           {{Attr::kernel, I{2}}},
           Layout::Contiguous,
           Values::Special},
          {Op::max_pool2d,
           {2, 2, 6, 7},
           with_indices({{Attr::kernel, I{2}}}),
           Layout::Contiguous,
           Values::Special},
          {Op::max_pool3d, {2, 2, 5, 6, 7}, with_indices(k3), Layout::Contiguous, Values::Special},
          {Op::max_pool3d, {2, 4, 5, 6}, with_indices(dilated3), Layout::Permuted},
          {Op::max_pool3d,
           {1, 3, 4, 6, 6},
           with_indices({{Attr::kernel, I{2}}}),
           Layout::ChannelsLast,
           Values::Halves},
          {Op::avg_pool1d, {2, 3, 10}, k3},
          {Op::avg_pool1d, {2, 3, 10}, avg_exclude},
          {Op::avg_pool2d, {2, 3, 7, 8}, {{Attr::kernel, I{2}}}},
          {Op::avg_pool2d,
           {2, 3, 7, 8},
           {{Attr::kernel, I{3}}, {Attr::stride, I{2}}, {Attr::padding, I{1}}},
           Layout::ChannelsLast},
          {Op::avg_pool2d, {2, 3, 7, 8}, avg_exclude},
          {Op::avg_pool2d,
           {3, 5, 6},
           {{Attr::kernel, I{2, 3}}, {Attr::padding, I{1}}, {Attr::ceil_mode, true}}},
          {Op::avg_pool2d, {1, 1, 4, 4}, {{Attr::kernel, I{2}}}, Layout::Contiguous, Values::Edge},
          {Op::avg_pool3d,
           {2, 3, 5, 6, 7},
           {{Attr::kernel, I{3, 2, 3}},
            {Attr::stride, I{2}},
            {Attr::padding, I{1}},
            {Attr::ceil_mode, true}}},
          {Op::avg_pool3d, {3, 4, 5, 6}, avg_exclude, Layout::Permuted},
          {Op::avg_pool3d,
           {1, 2, 4, 4, 4},
           {{Attr::kernel, I{2}}},
           Layout::ChannelsLast,
           Values::Edge},
          {Op::avg_pool3d, {0, 2, 4, 4, 4}, {{Attr::kernel, I{2}}}},
          // divisor_override: every window divided by it, clipped or not
          {Op::avg_pool2d,
           {2, 3, 7, 8},
           {{Attr::kernel, I{3}},
            {Attr::stride, I{2}},
            {Attr::padding, I{1}},
            {Attr::ceil_mode, true},
            {Attr::divisor, int64_t{4}}},
           Layout::ChannelsLast},
          {Op::avg_pool1d,
           {2, 3, 10},
           {{Attr::kernel, I{3}}, {Attr::divisor, int64_t{-2}}},
           Layout::Contiguous,
           Values::Edge},
          {Op::avg_pool3d,
           {1, 2, 5, 6, 7},
           {{Attr::kernel, I{2}}, {Attr::padding, I{1}}, {Attr::divisor, int64_t{5}}}},
      });
  const DType f = DType::Float32;
  out.push_back(error(Op::max_pool2d, {in(f, {1, 2, 6, 6})},
                      {{Attr::kernel, I{2}}, {Attr::padding, I{2}}}, ErrorCode::InvalidGraph,
                      "padding above half the kernel"));
  out.push_back(
      error(Op::avg_pool1d, {in(f, {4})}, {{Attr::kernel, I{2}}}, ErrorCode::Shape, "1-d input"));
  out.push_back(error(Op::max_pool2d, {in(f, {1, 2, 2, 2})}, {{Attr::kernel, I{3}}},
                      ErrorCode::Shape, "kernel above the input"));
  out.push_back(error(Op::avg_pool2d, {in(DType::Int64, {1, 2, 4, 4})}, {{Attr::kernel, I{2}}},
                      ErrorCode::DType, "integers"));
  out.push_back(error(Op::max_pool1d, {in(f, {1, 2, 6})}, {{Attr::kernel, I{0}}},
                      ErrorCode::InvalidGraph, "kernel 0"));
  out.push_back(error(Op::max_pool3d, {in(f, {2, 4, 4})}, {{Attr::kernel, I{2}}}, ErrorCode::Shape,
                      "3-d input"));
  out.push_back(error(Op::max_pool3d, {in(f, {1, 1, 4, 4, 4})}, {{Attr::kernel, I{2, 2}}},
                      ErrorCode::InvalidGraph, "two kernel sizes for three axes"));
  out.push_back(error(Op::avg_pool3d, {in(f, {1, 1, 4, 4, 4})},
                      {{Attr::kernel, I{2}}, {Attr::return_indices, true}}, ErrorCode::InvalidGraph,
                      "return_indices on an average pool"));
  out.push_back(error(Op::avg_pool2d, {in(f, {1, 1, 4, 4})},
                      {{Attr::kernel, I{2}}, {Attr::divisor, int64_t{0}}}, ErrorCode::InvalidGraph,
                      "divisor 0"));
  out.push_back(error(Op::max_pool2d, {in(f, {1, 1, 4, 4})},
                      {{Attr::kernel, I{2}}, {Attr::divisor, int64_t{2}}}, ErrorCode::InvalidGraph,
                      "divisor on a max pool"));
}

void add_adaptive_pools(std::vector<Case>& out) {
  const auto size = [](I s) { return Attrs{{Attr::shape, std::move(s)}}; };
  add_rows(
      out,
      {
          {Op::adaptive_avg_pool1d, {2, 3, 10}, size({4})},
          {Op::adaptive_avg_pool1d, {3, 5}, size({7})},
          {Op::adaptive_avg_pool2d, {2, 3, 7, 9}, size({3, 4})},
          {Op::adaptive_avg_pool2d, {3, 5, 5}, size({1, 1}), Layout::ChannelsLast},
          {Op::adaptive_avg_pool2d, {1, 2, 4, 3}, size({6, 7})},
          {Op::adaptive_avg_pool2d, {0, 2, 4, 3}, size({2, 2})},
          {Op::adaptive_avg_pool3d, {2, 2, 5, 6, 7}, size({2, 4, 3})},
          {Op::adaptive_avg_pool3d, {2, 3, 4, 5}, size({3, 3, 7}), Layout::Permuted, Values::Edge},
          {Op::adaptive_max_pool1d, {2, 3, 10}, size({4}), Layout::Contiguous, Values::Special},
          {Op::adaptive_max_pool1d,
           {2, 3, 10},
           with_indices(size({4})),
           Layout::Contiguous,
           Values::Special},
          {Op::adaptive_max_pool2d,
           {2, 3, 7, 9},
           with_indices(size({3, 4})),
           Layout::ChannelsLast,
           Values::Halves},
          {Op::adaptive_max_pool2d, {3, 5, 5}, with_indices(size({8, 2}))},
          {Op::adaptive_max_pool3d,
           {2, 2, 5, 6, 7},
           with_indices(size({2, 8, 3})),
           Layout::Contiguous,
           Values::Special},
          {Op::adaptive_max_pool3d, {0, 2, 2, 2, 2}, with_indices(size({1, 1, 1}))},
      });
  const DType f = DType::Float32;
  out.push_back(error(Op::adaptive_avg_pool2d, {in(f, {4, 4})}, {{Attr::shape, I{2, 2}}},
                      ErrorCode::Shape, "2-d input"));
  out.push_back(error(Op::adaptive_avg_pool2d, {in(f, {1, 4, 4})}, {{Attr::shape, I{2}}},
                      ErrorCode::InvalidGraph, "one output size"));
  out.push_back(error(Op::adaptive_max_pool3d, {in(f, {1, 2, 0, 4, 4})},
                      {{Attr::shape, I{2, 2, 2}}}, ErrorCode::Shape, "empty spatial axis"));
  out.push_back(error(Op::adaptive_max_pool1d, {in(f, {1, 2, 4})}, {{Attr::shape, I{0}}},
                      ErrorCode::InvalidGraph, "output size 0"));
  out.push_back(error(Op::adaptive_max_pool2d, {in(DType::Int32, {1, 2, 4, 4})},
                      {{Attr::shape, I{2, 2}}}, ErrorCode::DType, "integers"));
}

void add_max_unpool(std::vector<Case>& out) {
  const DType i64 = DType::Int64;
  for (DType t : kFloatDTypes) {
    // random indices in [-out, out): repeats keep the last value, negatives wrap once
    out.push_back(make(Op::max_unpool, {in(t, {2, 3, 4}), in_index(i64, {2, 3, 4}, 9)},
                       {{Attr::shape, I{9}}}, Accuracy::Exact));
    out.push_back(make(Op::max_unpool, {in(t, {2, 2, 3}), in_index(DType::Int32, {2, 2, 3}, 20)},
                       {{Attr::shape, I{4, 5}}}, Accuracy::Exact));
    out.push_back(make(Op::max_unpool,
                       {in(t, {1, 2, 2, 2, 2}, Layout::Permuted, Values::Special),
                        in_index(i64, {1, 2, 2, 2, 2}, 27)},
                       {{Attr::shape, I{3, 3, 3}}}, Accuracy::Exact));
  }
  const DType f = DType::Float32;
  Case range = make(Op::max_unpool, {in(f, {1, 1, 2}), in_values(i64, {1, 1, 2}, {0, 4})},
                    {{Attr::shape, I{4}}}, Accuracy::Exact);
  range.error = ErrorCode::Shape;
  range.note = "index 4 of 4";
  out.push_back(std::move(range));
  out.push_back(error(Op::max_unpool, {in(f, {1, 2, 2}), in(f, {1, 2, 2})}, {{Attr::shape, I{4}}},
                      ErrorCode::DType, "float indices"));
  out.push_back(error(Op::max_unpool, {in(f, {1, 2, 2}), in(i64, {1, 2, 3})}, {{Attr::shape, I{4}}},
                      ErrorCode::Shape, "indices of another shape"));
  out.push_back(error(Op::max_unpool, {in(f, {1, 2, 2}), in(i64, {1, 2, 2})},
                      {{Attr::shape, I{2, 2, 2, 2}}}, ErrorCode::InvalidGraph, "4 output sizes"));
  out.push_back(error(Op::max_unpool, {in(f, {2}), in(i64, {2})}, {{Attr::shape, I{4}}},
                      ErrorCode::Shape, "1-d input"));
}

}  // namespace

void add_pool_cases(std::vector<Case>& out) {
  add_window_pools(out);
  add_adaptive_pools(out);
  add_max_unpool(out);
}

}  // namespace tensord::conformance
