#include "engine/backends/cuda/dnn_geometry.h"

#include <algorithm>
#include <climits>

namespace tensord::cuda::dnn {
namespace {

// Row-major strides of `shape` taken in the axis order `order` (outermost first).
std::vector<int64_t> strides_in_order(std::span<const int64_t> shape,
                                      const std::vector<size_t>& order) {
  std::vector<int64_t> strides(shape.size());
  int64_t s = 1;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    strides[*it] = s;
    s *= shape[*it];
  }
  return strides;
}

std::vector<size_t> axis_order(size_t rank, Layout layout) {
  std::vector<size_t> order(rank);
  for (size_t d = 0; d < rank; ++d) order[d] = d;
  if (layout == Layout::ChannelsLast && rank > 2) {
    order.erase(order.begin() + 1);
    order.push_back(1);  // N, spatial..., C
  }
  return order;
}

bool same_strides(std::span<const int64_t> shape, std::span<const int64_t> strides,
                  const std::vector<int64_t>& want) {
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] != 1 && strides[d] != want[d]) return false;
  }
  return true;
}

bool fits_int(int64_t v) {
  return v >= 0 && v <= INT_MAX;
}

int64_t product(const std::vector<int64_t>& v, size_t from) {
  int64_t p = 1;
  for (size_t d = from; d < v.size(); ++d) p *= v[d];
  return p;
}

}  // namespace

bool has_layout(std::span<const int64_t> shape, std::span<const int64_t> strides, Layout layout) {
  return layout != Layout::Other && shape.size() == strides.size() &&
         same_strides(shape, strides, packed_strides(shape, layout));
}

Layout classify(std::span<const int64_t> shape, std::span<const int64_t> strides) {
  for (Layout layout : {Layout::RowMajor, Layout::ChannelsLast}) {
    if (has_layout(shape, strides, layout)) return layout;
  }
  return Layout::Other;
}

std::vector<int64_t> packed_strides(std::span<const int64_t> shape, Layout layout) {
  return strides_in_order(shape, axis_order(shape.size(), layout));
}

View with_unit_axis(const View& v, size_t axis) {
  View r = v;
  r.shape.insert(r.shape.begin() + static_cast<std::ptrdiff_t>(axis), 1);
  r.strides.insert(r.strides.begin() + static_cast<std::ptrdiff_t>(axis), 0);
  return r;
}

View as_nchw(const View& v, int nd) {
  View r = v;
  if (static_cast<int>(r.shape.size()) == nd + 1) r = with_unit_axis(r, 0);
  if (nd == 1) r = with_unit_axis(r, 2);
  return r;
}

ConvProblem conv_problem(ir::Op op, const ir::Attrs& attrs, const ir::Shape& x, const ir::Shape& w,
                         const ir::Shape& y) {
  const int nd = ir::spatial_rank(op);
  const ir::ConvGeometry g = ir::conv_geometry(op, attrs, nd);
  ConvProblem p;
  p.transposed = ir::is_conv_transpose(op);
  p.spatial = std::max(nd, 2);
  p.x = x, p.w = w, p.y = y;
  p.groups = g.groups;
  const int lead = p.spatial - nd;  // conv1d: a height of 1 in front
  for (int d = 0; d < nd; ++d) {
    p.pad[lead + d] = g.padding[d];
    p.stride[lead + d] = g.stride[d];
    p.dilation[lead + d] = g.dilation[d];
  }
  if (lead > 0) {
    for (std::vector<int64_t>* s : {&p.x, &p.w, &p.y}) s->insert(s->begin() + 2, 1);
  }
  return p;
}

bool cudnn_describes(const ConvProblem& p, int64_t batch) {
  for (int d = 0; d < p.spatial; ++d) {
    if (!fits_int(p.pad[d]) || !fits_int(p.stride[d]) || !fits_int(p.dilation[d])) return false;
  }
  if (!fits_int(p.groups) || !fits_int(batch)) return false;
  for (const std::vector<int64_t>* s : {&p.x, &p.w, &p.y}) {
    for (int64_t v : *s) {
      if (!fits_int(v)) return false;
    }
  }
  const int64_t xs = product(p.x, 1), ys = product(p.y, 1), ws = product(p.w, 0);
  if (!fits_int(ws) || xs > INT_MAX / std::max<int64_t>(batch, 1) ||
      ys > INT_MAX / std::max<int64_t>(batch, 1)) {
    return false;
  }
  if (p.transposed) {
    for (int d = 0; d < p.spatial; ++d) {
      const int64_t forward =
          ir::conv_output_size(p.y[2 + d], p.w[2 + d], p.pad[d], p.stride[d], p.dilation[d]);
      if (forward != p.x[2 + d]) return false;
    }
  }
  return true;
}

int64_t conv_batch_chunk(const ConvProblem& p) {
  const int64_t sample = std::max<int64_t>({product(p.x, 1), product(p.y, 1), 1});
  if (sample > INT_MAX) return 0;
  return std::max<int64_t>(1, std::min<int64_t>(p.x[0], INT_MAX / sample));
}

PoolProblem pool_problem(ir::Op op, const ir::Attrs& attrs, const ir::Shape& x,
                         const ir::Shape& y) {
  const ir::PoolGeometry g = ir::pool_geometry(op, attrs);
  PoolProblem p;
  p.is_max = ir::is_max_pool(op);
  p.ceil_mode = g.ceil_mode;
  p.count_include_pad = g.count_include_pad;
  const View xv = as_nchw(View{x, std::vector<int64_t>(x.size(), 0)}, g.nd);
  const View yv = as_nchw(View{y, std::vector<int64_t>(y.size(), 0)}, g.nd);
  p.n = xv.shape[0], p.c = xv.shape[1], p.ih = xv.shape[2], p.iw = xv.shape[3];
  p.oh = yv.shape[2], p.ow = yv.shape[3];
  const int lead = 2 - g.nd;
  for (int d = 0; d < g.nd; ++d) {
    p.kernel[lead + d] = g.kernel[d];
    p.stride[lead + d] = g.stride[d];
    p.pad[lead + d] = g.padding[d];
    p.dilation[lead + d] = g.dilation[d];
  }
  return p;
}

bool cudnn_pools(const PoolProblem& p) {
  const int64_t in[2] = {p.ih, p.iw}, out[2] = {p.oh, p.ow};
  for (int d = 0; d < 2; ++d) {
    if (p.dilation[d] != 1) return false;
    if (!fits_int(p.kernel[d]) || !fits_int(p.stride[d]) || !fits_int(p.pad[d])) return false;
    if (ir::pool_output_size(in[d], p.kernel[d], p.pad[d], p.stride[d], 1, false) != out[d]) {
      return false;  // ceil_mode added a window, which cuDNN does not know
    }
  }
  const int64_t planes = p.n * p.c;
  return fits_int(p.n) && fits_int(p.c) && planes > 0 && p.ih * p.iw <= INT_MAX / planes &&
         p.oh * p.ow <= INT_MAX / planes;
}

PoolArgs pool_args(ir::Op op, const ir::Attrs& attrs, const View& x, const ir::Shape& y) {
  const int nd = ir::spatial_rank(op), lead = 3 - nd;
  const View v = static_cast<int>(x.shape.size()) == nd + 1 ? with_unit_axis(x, 0) : x;
  PoolArgs a{};
  a.n = v.shape[0], a.c = v.shape[1], a.sn = v.strides[0], a.sc = v.strides[1];
  a.max = ir::is_max_pool(op) || ir::is_adaptive_max_pool(op) ? 1 : 0;
  a.adaptive = ir::is_adaptive_pool(op) ? 1 : 0;
  const ir::PoolGeometry g = a.adaptive ? ir::PoolGeometry{} : ir::pool_geometry(op, attrs);
  a.include_pad = g.count_include_pad ? 1 : 0;
  a.divisor = g.divisor;
  for (int e = 0; e < 3; ++e) {
    a.in[e] = a.out[e] = a.k[e] = a.s[e] = a.dil[e] = 1;
    a.st[e] = a.pad[e] = 0;
  }
  for (int d = 0; d < nd; ++d) {
    const int e = lead + d;
    a.in[e] = v.shape[2 + d];
    a.out[e] = y[y.size() - static_cast<size_t>(nd - d)];
    a.st[e] = v.strides[2 + d];
    a.k[e] = g.kernel[d], a.s[e] = g.stride[d], a.pad[e] = g.padding[d], a.dil[e] = g.dilation[d];
  }
  return a;
}

InterpolateArgs interpolate_args(const View& x, const ir::Shape& y,
                                 const ir::InterpolateGeometry& g) {
  InterpolateArgs a{};
  const int nd = static_cast<int>(x.shape.size()) - 2, lead = 3 - nd;
  a.n = x.shape[0], a.c = x.shape[1], a.nd = nd;
  a.mode = static_cast<int64_t>(g.mode);
  a.align_corners = g.align_corners ? 1 : 0;
  a.antialias = g.antialias ? 1 : 0;
  a.sn = x.strides[0], a.sc = x.strides[1];
  for (int d = 0; d < 3; ++d) {
    a.in[d] = a.out[d] = 1;
    a.st[d] = 0;
    a.scales[d] = 0;
  }
  for (int d = 0; d < nd; ++d) {
    a.in[lead + d] = x.shape[2 + d];
    a.out[lead + d] = y[2 + d];
    a.st[lead + d] = x.strides[2 + d];
    if (g.has_scales) a.scales[lead + d] = g.scales[d];
  }
  return a;
}

ConvArgs conv_args(const ConvProblem& p, const View& x, const View& w, bool has_bias,
                   int64_t bias_stride) {
  ConvArgs a{};
  a.n = p.x[0];
  a.cin = p.x[1];
  a.cout = p.y[1];
  a.groups = p.groups;
  a.transposed = p.transposed ? 1 : 0;
  a.has_bias = has_bias ? 1 : 0;
  a.bias_stride = has_bias ? bias_stride : 0;
  for (int e = 0; e < 3; ++e) {
    a.in[e] = a.k[e] = a.o[e] = a.s[e] = a.dil[e] = 1;
    a.pad[e] = 0;
  }
  // Three spatial axes, leading ones of size 1, as the CPU's direct loop.
  for (int d = 0; d < p.spatial; ++d) {
    const int e = 3 - p.spatial + d;
    a.in[e] = p.x[2 + d], a.k[e] = p.w[2 + d], a.o[e] = p.y[2 + d];
    a.s[e] = p.stride[d], a.pad[e] = p.pad[d], a.dil[e] = p.dilation[d];
  }
  View xv = x, wv = w;
  while (xv.shape.size() < 5) xv = with_unit_axis(xv, 2);
  while (wv.shape.size() < 5) wv = with_unit_axis(wv, 2);
  for (int d = 0; d < 5; ++d) {
    a.xs[d] = xv.strides[d];
    a.ws[d] = wv.strides[d];
  }
  return a;
}

CtcArgs ctc_args(const ir::Attrs& attrs, const View& lp, int64_t s_max) {
  CtcArgs a{};
  a.t_max = lp.shape[0], a.n = lp.shape[1], a.c = lp.shape[2], a.s_max = s_max;
  a.blank = attrs.get_int(ir::Attr::blank, 0);
  a.zero_inf = attrs.get_bool(ir::Attr::zero_infinity, false) ? 1 : 0;
  a.st_t = lp.strides[0], a.st_n = lp.strides[1], a.st_c = lp.strides[2];
  return a;
}

}  // namespace tensord::cuda::dnn
