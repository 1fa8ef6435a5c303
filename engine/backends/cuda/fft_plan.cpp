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

namespace {

bool is_identity(const std::vector<int>& order) {
  for (size_t i = 0; i < order.size(); ++i) {
    if (order[i] != static_cast<int>(i)) return false;
  }
  return true;
}

}  // namespace

void run_fft_plan(const FftPlanSpec& spec, const DeviceView& input, void* y, ir::DType out_t,
                  FftStageRunner& runner) {
  using ir::DType;
  const bool dbl = out_t == DType::Complex128 || out_t == DType::Float64;
  const DType complex_t = dbl ? DType::Complex128 : DType::Complex64;
  const DType real_t = dbl ? DType::Float64 : DType::Float32;
  DeviceView view = input;
  bool view_is_scratch = false;  // a stage may overwrite it
  for (size_t s = 0; s < spec.stages.size(); ++s) {
    const FftStage& st = spec.stages[s];
    const bool last_stage = s + 1 == spec.stages.size();
    const bool identity = is_identity(st.order);
    const DType in_t = st.kind == FftKind::R2C ? real_t : complex_t;
    const DType stage_out_t = st.kind == FftKind::C2R ? real_t : complex_t;
    const std::vector<int64_t> in_strides = permuted_strides(st.in_shape, st.order);
    CopyOptions copy;
    if (st.kind == FftKind::C2R) {
      copy.herm_dim = spec.herm_dim;
      copy.herm_n = spec.herm_n;
    }
    void* in = nullptr;
    if (view_is_scratch && view.dtype == in_t && view.shape == st.in_shape &&
        view.strides == in_strides) {
      // Already laid out for this stage: transform in place (after dropping c2r's ignored
      // imaginary parts, in place too).
      in = const_cast<void*>(view.data);
      if (copy.herm_dim >= 0) runner.copy(view, st.in_shape, in, in_t, in_strides, copy);
    } else {
      // The last c2c stage over the innermost dims in order transforms the output in place.
      in = st.kind == FftKind::C2C && last_stage && identity && out_t == complex_t
               ? y
               : runner.allocate(static_cast<size_t>(ir::numel(st.in_shape)) * ir::itemsize(in_t));
      runner.copy(view, st.in_shape, in, in_t, in_strides, copy);
    }
    void* out = in;
    if (st.kind != FftKind::C2C) {
      out = last_stage && identity && out_t == stage_out_t
                ? y
                : runner.allocate(static_cast<size_t>(ir::numel(st.out_shape)) *
                                  ir::itemsize(stage_out_t));
    }
    runner.transform(st, in, out);
    view = DeviceView{out, stage_out_t, st.out_shape, permuted_strides(st.out_shape, st.order)};
    view_is_scratch = true;
  }
  const std::vector<int64_t> y_strides = ir::contiguous_strides(spec.out_shape);
  CopyOptions scale;
  scale.scale = spec.scale;
  if (view.data == y) {
    if (spec.scale != 1) runner.copy(view, spec.out_shape, y, out_t, y_strides, scale);
    return;
  }
  // Also the whole run when there is no stage (every length 1): pad, cast, c2r's real part.
  runner.copy(view, spec.out_shape, y, out_t, y_strides, scale);
}

}  // namespace tensord::cuda
