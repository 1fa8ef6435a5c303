// The pooling kernel (dnn_pool) on the host (dnn_emulation.h) against the CPU backend, bit for
// bit, values and indices: every pool on 1 to 3 axes, strided and channels-last inputs,
// ceil_mode, dilation, divisor_override, NaN and ties, windows with no input element.
#include "tests/unit/cuda/dnn_emulation.h"

namespace tensord::cuda::dnn::test {
namespace {

struct PoolRow {
  Op op;
  I shape, strides;
  Attrs attrs;
  bool specials = false;
};

// The pool on the CPU backend (every output: values, and indices with return_indices) against
// the kernel, bit for bit.
void compare_pool(const PoolRow& r, DType t) {
  cpu::CpuBackend cpu(1);
  ir::Graph g;
  const ir::TensorType x_type{t, r.shape};
  const std::vector<char> bytes = encode(random_values(ir::numel(r.shape), 1, r.specials), t);
  auto x_buffer = cpu.allocate(bytes.size());
  cpu.write(*x_buffer, 0, bytes.data(), bytes.size());
  engine::TensorValue x = engine::TensorValue::contiguous(x_buffer, x_type);
  if (!r.strides.empty()) x.strides = r.strides;
  const ir::ValueRef y = g.add(r.op, {g.add_input(0, x_type)}, r.attrs);
  const ir::Node& node = g.nodes[y.node];
  std::vector<engine::TensorValue> outs;
  for (const ir::TensorType& o : node.outputs) {
    outs.push_back(engine::TensorValue::contiguous(cpu.allocate(o.nbytes()), o));
  }
  cpu.run(node, std::span<const engine::TensorValue>(&x, 1), outs);
  const ir::TensorType& vt = node.outputs[0];
  std::vector<char> want(vt.nbytes()), got(vt.nbytes());
  cpu.read(*outs[0].buffer, 0, want.data(), want.size());
  std::vector<long long> want_at(static_cast<size_t>(vt.numel())), got_at(want_at.size(), -7);
  if (outs.size() > 1) cpu.read(*outs[1].buffer, 0, want_at.data(), want_at.size() * 8);
  const PoolArgs a = pool_args(r.op, r.attrs, View{r.shape, x.strides}, vt.shape);
  kernels(t).pool(x.raw(), got.data(), outs.size() > 1 ? got_at.data() : nullptr, a);
  const size_t item = ir::itemsize(t);
  int bad = 0;
  for (size_t i = 0; i < static_cast<size_t>(vt.numel()); ++i) {
    const double w = decode(&want[i * item], t), k = decode(&got[i * item], t);
    const bool same = (std::isnan(w) && std::isnan(k)) || w == k;
    if ((!same || (outs.size() > 1 && want_at[i] != got_at[i])) && bad++ < 3) {
      UNSCOPED_INFO("element " << i << ": cpu " << w << " at " << want_at[i] << ", kernel " << k
                               << " at " << got_at[i]);
    }
  }
  CHECK(bad == 0);
}

TEST_CASE("pooling kernel = CPU backend (max with NaN, average divisors, ceil_mode, dilation)") {
  const Attrs indices{{Attr::kernel, I{3}}, {Attr::return_indices, true}};
  const std::vector<PoolRow> rows = {
      {Op::max_pool1d, {2, 3, 10}, {}, {{Attr::kernel, I{3}}}},
      {Op::max_pool1d,
       {3, 11},
       {},
       {{Attr::kernel, I{4}},
        {Attr::stride, I{2}},
        {Attr::padding, I{2}},
        {Attr::dilation, I{2}},
        {Attr::ceil_mode, true},
        {Attr::return_indices, true}}},
      {Op::max_pool1d, {2, 2, 9}, {}, {{Attr::kernel, I{2}}, {Attr::return_indices, true}}, true},
      {Op::max_pool2d,
       {2, 3, 7, 8},
       {168, 1, 24, 3},
       {{Attr::kernel, I{3, 2}},
        {Attr::stride, I{2, 1}},
        {Attr::padding, I{1}},
        {Attr::ceil_mode, true}}},
      {Op::max_pool2d,
       {1, 2, 9, 9},
       {162, 1, 2, 18},
       {{Attr::kernel, I{3}},
        {Attr::dilation, I{2}},
        {Attr::padding, I{1}},
        {Attr::return_indices, true}}},
      {Op::max_pool2d,
       {2, 2, 6, 7},
       {},
       {{Attr::kernel, I{2}}, {Attr::return_indices, true}},
       true},
      // a window of dilation 3 over an input of 2 holds no element: -inf at index -1
      {Op::max_pool1d,
       {1, 2, 2},
       {},
       {{Attr::kernel, I{2}},
        {Attr::padding, I{1}},
        {Attr::dilation, I{3}},
        {Attr::stride, I{1}},
        {Attr::return_indices, true}}},
      {Op::max_pool3d, {2, 2, 5, 6, 7}, {}, indices, true},
      {Op::max_pool3d,
       {2, 4, 5, 6},
       {1, 60, 12, 2},
       {{Attr::kernel, I{2, 3, 2}},
        {Attr::stride, I{1, 2, 2}},
        {Attr::padding, I{1, 1, 0}},
        {Attr::dilation, I{2, 1, 1}},
        {Attr::ceil_mode, true},
        {Attr::return_indices, true}}},
      {Op::avg_pool1d,
       {2, 3, 10},
       {},
       {{Attr::kernel, I{3}},
        {Attr::stride, I{2}},
        {Attr::padding, I{1}},
        {Attr::ceil_mode, true},
        {Attr::count_include_pad, false}}},
      {Op::avg_pool2d,
       {2, 3, 7, 8},
       {168, 1, 24, 3},
       {{Attr::kernel, I{3}}, {Attr::stride, I{2}}, {Attr::padding, I{1}}}},
      {Op::avg_pool2d,
       {2, 3, 7, 8},
       {},
       {{Attr::kernel, I{3}},
        {Attr::stride, I{2}},
        {Attr::padding, I{1}},
        {Attr::count_include_pad, false},
        {Attr::ceil_mode, true}}},
      {Op::avg_pool2d,
       {3, 5, 6},
       {},
       {{Attr::kernel, I{2, 3}}, {Attr::padding, I{1}}, {Attr::ceil_mode, true}}},
      {Op::avg_pool3d,
       {2, 3, 5, 6, 7},
       {},
       {{Attr::kernel, I{3, 2, 3}},
        {Attr::stride, I{2}},
        {Attr::padding, I{1}},
        {Attr::ceil_mode, true}}},
      {Op::avg_pool2d,
       {2, 3, 7, 8},
       {168, 1, 24, 3},
       {{Attr::kernel, I{3}},
        {Attr::stride, I{2}},
        {Attr::padding, I{1}},
        {Attr::ceil_mode, true},
        {Attr::divisor, int64_t{-4}}}},
      {Op::avg_pool3d,
       {3, 4, 5, 6},
       {120, 1, 24, 4},
       {{Attr::kernel, I{2}}, {Attr::padding, I{1}}, {Attr::count_include_pad, false}}},
      {Op::adaptive_avg_pool1d, {2, 3, 10}, {}, {{Attr::shape, I{4}}}},
      {Op::adaptive_avg_pool2d, {2, 3, 7, 9}, {}, {{Attr::shape, I{3, 4}}}},
      {Op::adaptive_avg_pool2d, {3, 5, 5}, {1, 15, 3}, {{Attr::shape, I{1, 1}}}},
      {Op::adaptive_avg_pool2d, {1, 2, 4, 3}, {}, {{Attr::shape, I{6, 7}}}},
      {Op::adaptive_avg_pool3d, {2, 2, 5, 6, 7}, {}, {{Attr::shape, I{2, 4, 3}}}},
      {Op::adaptive_max_pool1d, {2, 3, 10}, {}, {{Attr::shape, I{4}}}, true},
      {Op::adaptive_max_pool2d,
       {2, 3, 7, 9},
       {189, 1, 27, 3},
       {{Attr::shape, I{3, 4}}, {Attr::return_indices, true}},
       true},
      {Op::adaptive_max_pool3d,
       {2, 2, 5, 6, 7},
       {},
       {{Attr::shape, I{2, 8, 3}}, {Attr::return_indices, true}}},
  };
  for (const PoolRow& r : rows) {
    for (DType t : kDTypes) {
      INFO(ir::name(r.op) << " " << ir::name(t) << " rank " << r.shape.size());
      compare_pool(r, t);
    }
  }
}

}  // namespace
}  // namespace tensord::cuda::dnn::test
