#include "engine/backends/cuda/fft_plan.h"

#include <algorithm>
#include <cmath>

namespace tensord::cuda {
namespace {

using ir::Attr;
using ir::Op;

constexpr size_t kMaxCufftRank = 3;

FftStage make_stage(FftKind kind, bool inverse, std::vector<int> axes, const ir::Shape& in_shape,
                    const ir::Shape& out_shape, const ir::Shape& length_shape) {
  FftStage s;
  s.kind = kind;
  s.inverse = inverse;
  s.axes = std::move(axes);
  s.in_shape = in_shape;
  s.out_shape = out_shape;
  for (int a : s.axes) s.lengths.push_back(length_shape[static_cast<size_t>(a)]);
  for (int d = 0; d < static_cast<int>(in_shape.size()); ++d) {
    if (std::find(s.axes.begin(), s.axes.end(), d) != s.axes.end()) continue;
    s.order.push_back(d);
    s.batch *= in_shape[static_cast<size_t>(d)];
  }
  s.order.insert(s.order.end(), s.axes.begin(), s.axes.end());
  return s;
}

// c2c stages over `axes` (in order), up to three dims each, on data of shape `shape`.
void add_c2c(std::vector<FftStage>& stages, const std::vector<int>& axes, bool inverse,
             const ir::Shape& shape) {
  for (size_t i = 0; i < axes.size(); i += kMaxCufftRank) {
    std::vector<int> group(axes.begin() + static_cast<int64_t>(i),
                           axes.begin() + static_cast<int64_t>(std::min(axes.size(), i + 3)));
    stages.push_back(make_stage(FftKind::C2C, inverse, std::move(group), shape, shape, shape));
  }
}

}  // namespace

FftPlanSpec plan_fft(Op op, const ir::Attrs& attrs, const ir::Shape& in_shape,
                     const ir::Shape& out_shape) {
  FftPlanSpec p;
  p.op = op;
  p.out_shape = out_shape;
  const auto rank = static_cast<int64_t>(in_shape.size());
  for (int64_t a : attrs.get_ints(Attr::axes))
    p.axes.push_back(static_cast<int>(a < 0 ? a + rank : a));
  if (attrs.has(Attr::shape)) {
    p.lengths = attrs.get_ints(Attr::shape);
  } else {
    for (int a : p.axes) {
      p.lengths.push_back(op == Op::fft_c2r ? out_shape[static_cast<size_t>(a)]
                                            : in_shape[static_cast<size_t>(a)]);
    }
  }
  p.inverse = op == Op::fft_c2r || (op == Op::fft_c2c && attrs.get_bool(Attr::inverse, false));
  const int64_t norm = attrs.get_int(Attr::fft_norm, 0);
  double n_total = 1;
  for (int64_t n : p.lengths) n_total *= static_cast<double>(n);
  if (norm == 1) {
    p.scale = 1 / std::sqrt(n_total);
  } else if ((norm == 0 && p.inverse) || (norm == 2 && !p.inverse)) {
    p.scale = 1 / n_total;
  }

  const int last = p.axes.back();
  const int64_t n_last = p.lengths.back();
  p.padded_shape = in_shape;
  for (size_t i = 0; i < p.axes.size(); ++i)
    p.padded_shape[static_cast<size_t>(p.axes[i])] = p.lengths[i];
  if (op == Op::fft_c2r) p.padded_shape[static_cast<size_t>(last)] = n_last / 2 + 1;

  // The transform lengths as a shape (c2r: the real output length on the last axis).
  ir::Shape lengths_shape = p.padded_shape;
  lengths_shape[static_cast<size_t>(last)] = n_last;
  auto non_unit = [&](size_t count) {
    std::vector<int> r;
    for (size_t i = 0; i < count; ++i) {
      if (p.lengths[i] > 1) r.push_back(p.axes[i]);
    }
    return r;
  };

  ir::Shape cur = p.padded_shape;
  if (op == Op::fft_c2c || n_last == 1) {
    // A last axis of length 1 leaves r2c / c2r nothing of their own: c2c plus the casts.
    add_c2c(p.stages, non_unit(p.axes.size()), p.inverse, cur);
    return p;
  }
  std::vector<int> others = non_unit(p.axes.size() - 1);
  if (op == Op::fft_r2c) {
    const size_t take = std::min<size_t>(others.size(), kMaxCufftRank - 1);
    std::vector<int> group(others.end() - static_cast<int64_t>(take), others.end());
    group.push_back(last);
    ir::Shape out = cur;
    out[static_cast<size_t>(last)] = n_last / 2 + 1;
    p.stages.push_back(make_stage(FftKind::R2C, false, std::move(group), cur, out, lengths_shape));
    others.resize(others.size() - take);
    add_c2c(p.stages, others, false, out);
    return p;
  }
  // c2r
  add_c2c(p.stages, others, true, cur);
  ir::Shape out = cur;
  out[static_cast<size_t>(last)] = n_last;
  p.stages.push_back(make_stage(FftKind::C2R, true, {last}, cur, out, lengths_shape));
  p.herm_dim = last;
  p.herm_n = n_last;
  return p;
}

std::string fft_plan_key(const FftStage& stage, bool double_precision) {
  std::string key = stage.kind == FftKind::C2C ? "c2c" : stage.kind == FftKind::R2C ? "r2c" : "c2r";
  key += double_precision ? " f64 n=" : " f32 n=";
  for (size_t i = 0; i < stage.lengths.size(); ++i) {
    if (i > 0) key += 'x';
    key += std::to_string(stage.lengths[i]);
  }
  key += " batch=" + std::to_string(stage.batch);
  return key;
}

}  // namespace tensord::cuda
