// Pooling (tensord/ops_nn.h): one node each; the _with_indices forms are the max pools'
// return_indices node with its two outputs. max_unpool sizes its output as PyTorch does;
// lp_pool is PyTorch's composite of avg_pool.
#include <optional>
#include <string>
#include <vector>

#include "client/cpp/src/recorder.h"
#include "tensord/ops.h"
#include "tensord/session.h"

namespace tensord {

using detail::record;
using ir::Attr;
using ir::Attrs;
using ir::Op;

namespace {

Attrs pool_attrs(Ints kernel, Ints stride, Ints padding) {
  Attrs a{{Attr::kernel, std::move(kernel)}, {Attr::padding, std::move(padding)}};
  if (!stride.empty()) a.set(Attr::stride, std::move(stride));
  return a;
}

Attrs max_attrs(Ints kernel, Ints stride, Ints padding, Ints dilation, bool ceil_mode,
                bool indices) {
  Attrs a = pool_attrs(std::move(kernel), std::move(stride), std::move(padding));
  a.set(Attr::dilation, std::move(dilation));
  a.set(Attr::ceil_mode, ceil_mode);
  if (indices) a.set(Attr::return_indices, true);
  return a;
}

Attrs avg_attrs(Ints kernel, Ints stride, Ints padding, bool ceil_mode, bool count_include_pad,
                std::optional<int64_t> divisor) {
  Attrs a = pool_attrs(std::move(kernel), std::move(stride), std::move(padding));
  a.set(Attr::ceil_mode, ceil_mode);
  a.set(Attr::count_include_pad, count_include_pad);
  if (divisor) a.set(Attr::divisor, *divisor);
  return a;
}

ValuesIndices pair(Op op, const Tensor& x, Attrs attrs, Loc loc) {
  std::vector<Tensor> out = detail::record_multi(op, {&x, 1}, std::move(attrs), loc);
  return ValuesIndices{std::move(out[0]), std::move(out[1])};
}

Attrs adaptive_max_attrs(Ints size, bool indices) {
  Attrs a{{Attr::shape, std::move(size)}};
  if (indices) a.set(Attr::return_indices, true);
  return a;
}

// `v` as nd values (one value repeated); empty stays empty.
Ints per_axis(const Ints& v, size_t nd) {
  return v.size() == 1 ? Ints(nd, v[0]) : v;
}

Tensor unpool(size_t nd, const Tensor& x, const Tensor& indices, Ints kernel, Ints stride,
              Ints padding, Ints output_size, Loc loc) {
  Ints size = output_size;
  if (size.empty()) {
    const Ints k = per_axis(kernel, nd), p = per_axis(padding, nd);
    const Ints s = stride.empty() ? k : per_axis(stride, nd);
    const ir::Shape& xs = x.shape(loc);
    if (k.size() != nd || s.size() != nd || p.size() != nd || xs.size() < nd) {
      throw Error(ErrorCode::InvalidGraph,
                  "max_unpool" + std::to_string(nd) + "d needs 1 or " + std::to_string(nd) +
                      " kernel, stride and padding values and an input with " + std::to_string(nd) +
                      " spatial axes");
    }
    for (size_t d = 0; d < nd; ++d) {
      size.push_back((xs[xs.size() - nd + d] - 1) * s[d] - 2 * p[d] + k[d]);
    }
  } else if (size.size() > nd) {  // PyTorch also takes the whole output shape
    size.erase(size.begin(), size.end() - static_cast<std::ptrdiff_t>(nd));
  }
  return record(Op::max_unpool, {&x, &indices}, {{Attr::shape, std::move(size)}}, loc);
}

Tensor lp_pool(size_t nd, const Tensor& x, double p, const Ints& kernel, const Ints& stride,
               bool ceil_mode, Loc loc) {
  double volume = 1;
  for (int64_t k : per_axis(kernel, nd)) volume *= static_cast<double>(k);
  auto fn = nd == 1 ? &avg_pool1d : nd == 3 ? &avg_pool3d : &avg_pool2d;
  const Tensor avg = fn(pow(x, p, loc), kernel, stride, {0}, ceil_mode, true, std::nullopt, loc);
  return pow(mul(avg, volume, loc), 1.0 / p, loc);
}

}  // namespace

Tensor max_pool1d(const Tensor& x, Ints kernel, Ints stride, Ints padding, Ints dilation,
                  bool ceil_mode, Loc loc) {
  return record(Op::max_pool1d, {&x},
                max_attrs(kernel, stride, padding, dilation, ceil_mode, false), loc);
}
Tensor max_pool2d(const Tensor& x, Ints kernel, Ints stride, Ints padding, Ints dilation,
                  bool ceil_mode, Loc loc) {
  return record(Op::max_pool2d, {&x},
                max_attrs(kernel, stride, padding, dilation, ceil_mode, false), loc);
}
Tensor max_pool3d(const Tensor& x, Ints kernel, Ints stride, Ints padding, Ints dilation,
                  bool ceil_mode, Loc loc) {
  return record(Op::max_pool3d, {&x},
                max_attrs(kernel, stride, padding, dilation, ceil_mode, false), loc);
}
ValuesIndices max_pool1d_with_indices(const Tensor& x, Ints kernel, Ints stride, Ints padding,
                                      Ints dilation, bool ceil_mode, Loc loc) {
  return pair(Op::max_pool1d, x, max_attrs(kernel, stride, padding, dilation, ceil_mode, true),
              loc);
}
ValuesIndices max_pool2d_with_indices(const Tensor& x, Ints kernel, Ints stride, Ints padding,
                                      Ints dilation, bool ceil_mode, Loc loc) {
  return pair(Op::max_pool2d, x, max_attrs(kernel, stride, padding, dilation, ceil_mode, true),
              loc);
}
ValuesIndices max_pool3d_with_indices(const Tensor& x, Ints kernel, Ints stride, Ints padding,
                                      Ints dilation, bool ceil_mode, Loc loc) {
  return pair(Op::max_pool3d, x, max_attrs(kernel, stride, padding, dilation, ceil_mode, true),
              loc);
}
Tensor avg_pool1d(const Tensor& x, Ints kernel, Ints stride, Ints padding, bool ceil_mode,
                  bool count_include_pad, std::optional<int64_t> divisor_override, Loc loc) {
  return record(Op::avg_pool1d, {&x},
                avg_attrs(kernel, stride, padding, ceil_mode, count_include_pad, divisor_override),
                loc);
}
Tensor avg_pool2d(const Tensor& x, Ints kernel, Ints stride, Ints padding, bool ceil_mode,
                  bool count_include_pad, std::optional<int64_t> divisor_override, Loc loc) {
  return record(Op::avg_pool2d, {&x},
                avg_attrs(kernel, stride, padding, ceil_mode, count_include_pad, divisor_override),
                loc);
}
Tensor avg_pool3d(const Tensor& x, Ints kernel, Ints stride, Ints padding, bool ceil_mode,
                  bool count_include_pad, std::optional<int64_t> divisor_override, Loc loc) {
  return record(Op::avg_pool3d, {&x},
                avg_attrs(kernel, stride, padding, ceil_mode, count_include_pad, divisor_override),
                loc);
}
Tensor lp_pool1d(const Tensor& x, double norm_type, Ints kernel, Ints stride, bool ceil_mode,
                 Loc loc) {
  return lp_pool(1, x, norm_type, kernel, stride, ceil_mode, loc);
}
Tensor lp_pool2d(const Tensor& x, double norm_type, Ints kernel, Ints stride, bool ceil_mode,
                 Loc loc) {
  return lp_pool(2, x, norm_type, kernel, stride, ceil_mode, loc);
}
Tensor lp_pool3d(const Tensor& x, double norm_type, Ints kernel, Ints stride, bool ceil_mode,
                 Loc loc) {
  return lp_pool(3, x, norm_type, kernel, stride, ceil_mode, loc);
}
Tensor adaptive_avg_pool1d(const Tensor& x, Ints output_size, Loc loc) {
  return record(Op::adaptive_avg_pool1d, {&x}, {{Attr::shape, std::move(output_size)}}, loc);
}
Tensor adaptive_avg_pool2d(const Tensor& x, Ints output_size, Loc loc) {
  return record(Op::adaptive_avg_pool2d, {&x}, {{Attr::shape, std::move(output_size)}}, loc);
}
Tensor adaptive_avg_pool3d(const Tensor& x, Ints output_size, Loc loc) {
  return record(Op::adaptive_avg_pool3d, {&x}, {{Attr::shape, std::move(output_size)}}, loc);
}
Tensor adaptive_max_pool1d(const Tensor& x, Ints output_size, Loc loc) {
  return record(Op::adaptive_max_pool1d, {&x}, adaptive_max_attrs(output_size, false), loc);
}
Tensor adaptive_max_pool2d(const Tensor& x, Ints output_size, Loc loc) {
  return record(Op::adaptive_max_pool2d, {&x}, adaptive_max_attrs(output_size, false), loc);
}
Tensor adaptive_max_pool3d(const Tensor& x, Ints output_size, Loc loc) {
  return record(Op::adaptive_max_pool3d, {&x}, adaptive_max_attrs(output_size, false), loc);
}
ValuesIndices adaptive_max_pool1d_with_indices(const Tensor& x, Ints output_size, Loc loc) {
  return pair(Op::adaptive_max_pool1d, x, adaptive_max_attrs(output_size, true), loc);
}
ValuesIndices adaptive_max_pool2d_with_indices(const Tensor& x, Ints output_size, Loc loc) {
  return pair(Op::adaptive_max_pool2d, x, adaptive_max_attrs(output_size, true), loc);
}
ValuesIndices adaptive_max_pool3d_with_indices(const Tensor& x, Ints output_size, Loc loc) {
  return pair(Op::adaptive_max_pool3d, x, adaptive_max_attrs(output_size, true), loc);
}
Tensor max_unpool1d(const Tensor& x, const Tensor& indices, Ints kernel, Ints stride, Ints padding,
                    Ints output_size, Loc loc) {
  return unpool(1, x, indices, kernel, stride, padding, output_size, loc);
}
Tensor max_unpool2d(const Tensor& x, const Tensor& indices, Ints kernel, Ints stride, Ints padding,
                    Ints output_size, Loc loc) {
  return unpool(2, x, indices, kernel, stride, padding, output_size, loc);
}
Tensor max_unpool3d(const Tensor& x, const Tensor& indices, Ints kernel, Ints stride, Ints padding,
                    Ints output_size, Loc loc) {
  return unpool(3, x, indices, kernel, stride, padding, output_size, loc);
}

}  // namespace tensord
