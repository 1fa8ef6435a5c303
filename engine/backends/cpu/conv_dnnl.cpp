// Convolutions through oneDNN (docs/ops.md "Neural-network ops"): conv1d/2d/3d as
// convolution_forward, conv_transpose1d/2d/3d as deconvolution_forward, forward inference in
// float32 (float16/bfloat16 inputs are converted to float32 and the result rounded once).
//
// Layouts: an input whose strides are row-major (N, C, spatial...) or channels-last
// (N, spatial..., C, i.e. PyTorch's channels_last / NHWC) is handed to oneDNN as it is, through
// a strided memory descriptor: no copy. Any other layout is copied to row-major first. Weights
// are reordered into the layout the primitive chooses; the result is reordered into the
// contiguous output. float64, and any problem oneDNN refuses (zero channels), run the
// direct loops of kernels_nn.cpp.
#include <omp.h>

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>

#include "engine/backends/cpu/host_buffer.h"
#include "engine/backends/cpu/kernels.h"
#include "engine/ir/nn_geometry.h"

namespace tensord::cpu {

void run_conv_direct(const KernelContext& ctx, const ir::Node& node,
                     std::span<const TensorValue> inputs, const TensorValue& out);

namespace {

using dnnl::memory;
using ir::Op;

dnnl::engine& cpu_engine() {
  static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

// Row-major strides of `shape` taken in the axis order `order` (outermost first).
memory::dims strides_in_order(const ir::Shape& shape, const std::vector<int>& order) {
  memory::dims strides(shape.size());
  int64_t s = 1;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    strides[*it] = s;
    s *= shape[*it];
  }
  return strides;
}

bool same_strides(const Operand& v, const memory::dims& want) {
  for (int d = 0; d < v.rank; ++d) {
    if (v.shape[d] != 1 && v.strides[d] != want[d]) return false;
  }
  return true;
}

// The strides oneDNN gets for x: row-major or channels-last when x has one of those layouts
// (size-1 axes may have any stride), else nullopt.
std::optional<memory::dims> plain_strides(const Operand& v, const ir::Shape& shape) {
  std::vector<int> order(shape.size());
  for (size_t d = 0; d < order.size(); ++d) order[d] = static_cast<int>(d);
  memory::dims row_major = strides_in_order(shape, order);
  if (same_strides(v, row_major)) return row_major;
  order.erase(order.begin() + 1);
  order.push_back(1);  // N, spatial..., C
  memory::dims last = strides_in_order(shape, order);
  if (same_strides(v, last)) return last;
  return std::nullopt;
}

memory::dims dims_of(const ir::Shape& s) {
  return memory::dims(s.begin(), s.end());
}

// The weight as PyTorch stores it, described in oneDNN's order: (O, I, k...) or, grouped,
// (G, O/G, I/G, k...). A transposed convolution's weight is stored (I, O/G, k...).
memory::desc user_weights(Op op, const ir::Shape& ws, int64_t groups, int64_t cin, int64_t cout) {
  const bool transposed = ir::is_conv_transpose(op);
  int64_t k = 1;
  for (size_t d = 2; d < ws.size(); ++d) k *= ws[d];
  const int64_t cin_g = cin / groups, cout_g = cout / groups;
  memory::dims dims, strides;
  if (groups > 1) dims.push_back(groups);
  dims.push_back(groups > 1 ? cout_g : cout);
  dims.push_back(groups > 1 ? cin_g : cin);
  // strides of (g, o, i) in the stored tensor
  const int64_t so = transposed ? k : cin_g * k;
  const int64_t si = transposed ? cout_g * k : k;
  const int64_t sg = cin_g * cout_g * k;
  if (groups > 1) strides.push_back(sg);
  strides.push_back(so);
  strides.push_back(si);
  int64_t s = k;
  for (size_t d = 2; d < ws.size(); ++d) {
    s /= ws[d];
    dims.push_back(ws[d]);
    strides.push_back(s);
  }
  return memory::desc(dims, memory::data_type::f32, strides);
}

bool run_dnnl(const KernelContext& ctx, const ir::Node& node, std::span<const TensorValue> inputs,
              const TensorValue& out) {
  const Op op = node.op;
  const int nd = ir::spatial_rank(op);
  const ir::ConvGeometry g = ir::conv_geometry(op, node.attrs, nd);
  TensorValue x = cast_to(ctx, inputs[0], ir::DType::Float32);
  const ir::Shape xs = x.type.shape;
  std::optional<memory::dims> x_strides = plain_strides(operand_of(x), xs);
  if (!x_strides) {
    x = make_contiguous(ctx, x);
    x_strides = plain_strides(operand_of(x), xs);
  }
  TensorValue w = make_contiguous(ctx, cast_to(ctx, inputs[1], ir::DType::Float32));
  TensorValue bias;
  if (inputs.size() > 2) bias = make_contiguous(ctx, cast_to(ctx, inputs[2], ir::DType::Float32));
  const int64_t cin = xs[1], cout = out.type.shape[1];
  if (cin == 0) return false;  // oneDNN takes no zero-size channels; the direct loop does

  dnnl::engine& eng = cpu_engine();
  const memory::desc src_md(dims_of(xs), memory::data_type::f32, *x_strides);
  const memory::desc w_user = user_weights(op, w.type.shape, g.groups, cin, cout);
  const memory::desc w_any(w_user.dims(), memory::data_type::f32, memory::format_tag::any);
  const memory::desc bias_md({cout}, memory::data_type::f32, memory::format_tag::a);
  const memory::desc dst_any(dims_of(out.type.shape), memory::data_type::f32,
                             memory::format_tag::any);
  memory::dims strides, dilates, pad_l, pad_r;
  for (int d = 0; d < nd; ++d) {
    strides.push_back(g.stride[d]);
    dilates.push_back(g.dilation[d] - 1);
    pad_l.push_back(g.padding[d]);
    // oneDNN checks (in + pad_l + pad_r - extent) / stride + 1 == out with floor division, so
    // pad_r = pad_l gives PyTorch's size; a transposed convolution drops output_padding.
    pad_r.push_back(ir::is_conv_transpose(op) ? g.padding[d] - g.output_padding[d] : g.padding[d]);
  }
  const memory::desc no_bias;
  const memory::desc& b_md = bias.buffer ? bias_md : no_bias;
  omp_set_num_threads(ctx.threads);
  try {
    // The primitive's scratchpad (im2col and the like) is ours to give, so that it is tracked.
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    dnnl::primitive prim;
    memory::desc w_md, dst_md, scratchpad_md;
    if (ir::is_conv_transpose(op)) {
      dnnl::deconvolution_forward::primitive_desc pd(
          dnnl::deconvolution_forward::desc(dnnl::prop_kind::forward_inference,
                                            dnnl::algorithm::deconvolution_direct, src_md, w_any,
                                            b_md, dst_any, strides, dilates, pad_l, pad_r),
          attr, eng);
      prim = dnnl::deconvolution_forward(pd);
      w_md = pd.weights_desc();
      dst_md = pd.dst_desc();
      scratchpad_md = pd.scratchpad_desc();
    } else {
      dnnl::convolution_forward::primitive_desc pd(
          dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference,
                                          dnnl::algorithm::convolution_direct, src_md, w_any, b_md,
                                          dst_any, strides, dilates, pad_l, pad_r),
          attr, eng);
      prim = dnnl::convolution_forward(pd);
      w_md = pd.weights_desc();
      dst_md = pd.dst_desc();
      scratchpad_md = pd.scratchpad_desc();
    }
    dnnl::stream stream(eng);
    memory src_mem(src_md, eng, operand_of(x).data);
    memory w_mem(w_user, eng, w.data<float>());
    // oneDNN's own layouts (reordered weights, a blocked result) live in tracked scratch.
    std::shared_ptr<engine::Buffer> w_scratch, dst_scratch;
    if (w_md != w_user) {
      w_scratch = scratch_buffer(ctx.scratch, w_md.get_size());
      memory reordered(w_md, eng, w_scratch->data());
      dnnl::reorder(w_mem, reordered).execute(stream, w_mem, reordered);
      w_mem = reordered;
    }
    // The result: straight into `out` when the primitive writes row-major float32.
    const memory::desc out_md(dims_of(out.type.shape), memory::data_type::f32,
                              strides_in_order(out.type.shape, [&] {
                                std::vector<int> o(out.type.shape.size());
                                for (size_t d = 0; d < o.size(); ++d) o[d] = static_cast<int>(d);
                                return o;
                              }()));
    TensorValue y =
        out.type.dtype == ir::DType::Float32
            ? out
            : allocate_value(ctx.scratch, ir::TensorType{ir::DType::Float32, out.type.shape});
    memory y_mem(out_md, eng, y.data<float>());
    if (dst_md != out_md) dst_scratch = scratch_buffer(ctx.scratch, dst_md.get_size());
    memory dst_mem = dst_md == out_md ? y_mem : memory(dst_md, eng, dst_scratch->data());
    std::unordered_map<int, memory> args{
        {DNNL_ARG_SRC, src_mem}, {DNNL_ARG_WEIGHTS, w_mem}, {DNNL_ARG_DST, dst_mem}};
    if (bias.buffer) args.emplace(DNNL_ARG_BIAS, memory(bias_md, eng, bias.data<float>()));
    std::shared_ptr<engine::Buffer> scratchpad;
    if (scratchpad_md.get_size() != 0) {
      scratchpad = scratch_buffer(ctx.scratch, scratchpad_md.get_size());
      args.emplace(DNNL_ARG_SCRATCHPAD, memory(scratchpad_md, eng, scratchpad->data()));
    }
    prim.execute(stream, args);
    if (dst_md != out_md) dnnl::reorder(dst_mem, y_mem).execute(stream, dst_mem, y_mem);
    stream.wait();
    if (out.type.dtype != ir::DType::Float32) cast_into(ctx, operand_of(y), operand_of(out));
  } catch (const dnnl::error& e) {
    if (e.status == dnnl_unimplemented || e.status == dnnl_invalid_arguments) return false;
    throw Error(ErrorCode::Internal,
                std::string("oneDNN ") + std::string(ir::name(op)) + ": " + e.what());
  }
  return true;
}

}  // namespace

void run_conv(const KernelContext& ctx, const ir::Node& node, std::span<const TensorValue> inputs,
              const TensorValue& out) {
  if (out.type.dtype != ir::DType::Float64 && run_dnnl(ctx, node, inputs, out)) return;
  run_conv_direct(ctx, node, inputs, out);
}

}  // namespace tensord::cpu
