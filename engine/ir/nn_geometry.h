// Window geometry of the neural-network ops (convolution, pooling): the spatial attributes
// resolved to one value per spatial axis and the output sizes, as docs/ops.md defines them.
// Shared by inference (infer_nn.cpp) and the CPU kernels, so both read attributes one way.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "engine/ir/attrs.h"
#include "engine/ir/error.h"
#include "engine/ir/op.h"

namespace tensord::ir {

inline constexpr int kMaxSpatial = 3;
// Attribute values beyond this are refused (InvalidGraph): no window arithmetic overflows.
inline constexpr int64_t kMaxWindowAttr = int64_t{1} << 31;

using Spatial = std::array<int64_t, kMaxSpatial>;
__extension__ typedef __int128 WideInt;  // window arithmetic without overflow

// `attr` as nd values: absent -> `fallback` each; one value -> repeated; nd values -> as is.
// Each value must be >= `lo`.
inline Spatial spatial_attr(Op op, const Attrs& attrs, Attr attr, int nd, int64_t fallback,
                            int64_t lo) {
  Spatial v{fallback, fallback, fallback};
  if (const AttrValue* a = attrs.find(attr)) {
    const auto& list = std::get<std::vector<int64_t>>(*a);
    if (list.size() != 1 && list.size() != static_cast<size_t>(nd)) {
      throw Error(ErrorCode::InvalidGraph, std::string(name(op)) + "'s " + std::string(name(attr)) +
                                               " needs 1 or " + std::to_string(nd) +
                                               " values, got " + std::to_string(list.size()));
    }
    for (int d = 0; d < nd; ++d) v[d] = list.size() == 1 ? list[0] : list[d];
  }
  for (int d = 0; d < nd; ++d) {
    if (v[d] < lo || v[d] > kMaxWindowAttr) {
      throw Error(ErrorCode::InvalidGraph, std::string(name(op)) + "'s " + std::string(name(attr)) +
                                               " must be in [" + std::to_string(lo) +
                                               ", 2^31], got " + std::to_string(v[d]));
    }
  }
  return v;
}

// How many spatial axes an op works on (max_unpool and interpolate: their `shape` attribute's
// length).
inline int spatial_rank(Op op) {
  switch (op) {
    case Op::conv1d:
    case Op::conv_transpose1d:
    case Op::max_pool1d:
    case Op::avg_pool1d:
    case Op::adaptive_avg_pool1d:
    case Op::adaptive_max_pool1d:
      return 1;
    case Op::conv3d:
    case Op::conv_transpose3d:
    case Op::max_pool3d:
    case Op::avg_pool3d:
    case Op::adaptive_avg_pool3d:
    case Op::adaptive_max_pool3d:
      return 3;
    default:
      return 2;
  }
}

inline bool is_max_pool(Op op) {
  return op == Op::max_pool1d || op == Op::max_pool2d || op == Op::max_pool3d;
}

inline bool is_adaptive_max_pool(Op op) {
  return op == Op::adaptive_max_pool1d || op == Op::adaptive_max_pool2d ||
         op == Op::adaptive_max_pool3d;
}

inline bool is_adaptive_pool(Op op) {
  return is_adaptive_max_pool(op) || op == Op::adaptive_avg_pool1d ||
         op == Op::adaptive_avg_pool2d || op == Op::adaptive_avg_pool3d;
}

// A window pool (max or average, not adaptive).
inline bool is_window_pool(Op op) {
  return is_max_pool(op) || op == Op::avg_pool1d || op == Op::avg_pool2d || op == Op::avg_pool3d;
}

inline bool is_conv_transpose(Op op) {
  return op == Op::conv_transpose1d || op == Op::conv_transpose2d || op == Op::conv_transpose3d;
}

inline bool is_conv(Op op) {
  return op == Op::conv1d || op == Op::conv2d || op == Op::conv3d || is_conv_transpose(op);
}

// A convolution's resolved attributes.
struct ConvGeometry {
  int nd = 2;
  Spatial stride{1, 1, 1}, padding{0, 0, 0}, dilation{1, 1, 1}, output_padding{0, 0, 0};
  int64_t groups = 1;
};

inline ConvGeometry conv_geometry(Op op, const Attrs& attrs, int nd) {
  ConvGeometry g;
  g.nd = nd;
  g.stride = spatial_attr(op, attrs, Attr::stride, nd, 1, 1);
  g.padding = spatial_attr(op, attrs, Attr::padding, nd, 0, 0);
  g.dilation = spatial_attr(op, attrs, Attr::dilation, nd, 1, 1);
  if (is_conv_transpose(op)) {
    g.output_padding = spatial_attr(op, attrs, Attr::output_padding, nd, 0, 0);
  }
  g.groups = attrs.get_int(Attr::groups, 1);
  if (g.groups < 1 || g.groups > kMaxWindowAttr) {
    throw Error(ErrorCode::InvalidGraph,
                std::string(name(op)) + "'s groups must be >= 1, got " + std::to_string(g.groups));
  }
  return g;
}

// A pooling op's resolved attributes.
struct PoolGeometry {
  int nd = 2;
  Spatial kernel{1, 1, 1}, stride{1, 1, 1}, padding{0, 0, 0}, dilation{1, 1, 1};
  bool ceil_mode = false, count_include_pad = true;
  int64_t divisor = 0;  // averages: PyTorch's divisor_override (0: the window's count)
};

inline PoolGeometry pool_geometry(Op op, const Attrs& attrs) {
  PoolGeometry g;
  g.nd = spatial_rank(op);
  g.kernel = spatial_attr(op, attrs, Attr::kernel, g.nd, 1, 1);
  // stride defaults to the kernel size (PyTorch's stride=None).
  if (attrs.has(Attr::stride)) {
    g.stride = spatial_attr(op, attrs, Attr::stride, g.nd, 1, 1);
  } else {
    g.stride = g.kernel;
  }
  g.padding = spatial_attr(op, attrs, Attr::padding, g.nd, 0, 0);
  if (is_max_pool(op)) {
    g.dilation = spatial_attr(op, attrs, Attr::dilation, g.nd, 1, 1);
  }
  g.ceil_mode = attrs.get_bool(Attr::ceil_mode, false);
  g.count_include_pad = attrs.get_bool(Attr::count_include_pad, true);
  g.divisor = attrs.get_int(Attr::divisor, 0);
  if (attrs.has(Attr::divisor) &&
      (g.divisor == 0 || g.divisor < -kMaxWindowAttr || g.divisor > kMaxWindowAttr)) {
    throw Error(ErrorCode::InvalidGraph, std::string(name(op)) +
                                             "'s divisor must be nonzero and within 2^31, got " +
                                             std::to_string(g.divisor));
  }
  for (int d = 0; d < g.nd; ++d) {
    if (g.padding[d] > g.kernel[d] / 2) {
      throw Error(ErrorCode::InvalidGraph,
                  std::string(name(op)) + ": padding " + std::to_string(g.padding[d]) +
                      " must be at most half the kernel size " + std::to_string(g.kernel[d]));
    }
  }
  return g;
}

// PyTorch's pooling_output_shape: floor (or ceil) of (size + 2 pad - dilation (k - 1) - 1) /
// stride, plus 1; with ceil_mode the last window must start inside the input or left padding.
// May be < 1 (the caller rejects that). Arguments are bounded (kMaxWindowAttr, int64 sizes), so
// the arithmetic runs in __int128 without overflow.
inline int64_t pool_output_size(int64_t size, int64_t k, int64_t pad, int64_t stride,
                                int64_t dilation, bool ceil_mode) {
  const WideInt num =
      static_cast<WideInt>(size) + 2 * pad - dilation * (k - 1) - 1 + (ceil_mode ? stride - 1 : 0);
  const WideInt q = num >= 0 ? num / stride : -((-num + stride - 1) / stride);  // floor
  WideInt out = q + 1;
  if (ceil_mode && (out - 1) * stride >= static_cast<WideInt>(size) + pad) --out;
  return static_cast<int64_t>(out);
}

// Convolution output size: floor((size + 2 pad - dilation (k - 1) - 1) / stride) + 1.
inline int64_t conv_output_size(int64_t size, int64_t k, int64_t pad, int64_t stride,
                                int64_t dilation) {
  return pool_output_size(size, k, pad, stride, dilation, false);
}

// Transposed convolution: (size - 1) stride - 2 pad + dilation (k - 1) + output_padding + 1.
inline int64_t conv_transpose_output_size(int64_t size, int64_t k, int64_t pad, int64_t stride,
                                          int64_t dilation, int64_t output_padding) {
  const WideInt v = static_cast<WideInt>(size - 1) * stride - 2 * static_cast<WideInt>(pad) +
                    static_cast<WideInt>(dilation) * (k - 1) + output_padding + 1;
  if (v > (static_cast<WideInt>(1) << 62)) return int64_t{1} << 62;
  return static_cast<int64_t>(v);
}

// interpolate's modes (the `mode` attribute), PyTorch's names in comments.
enum class InterpolateMode : int64_t {
  Nearest = 0,       // "nearest": source floor(o * scale)
  Linear = 1,        // "linear", "bilinear", "trilinear" by the number of spatial axes
  Bicubic = 2,       // "bicubic": 2 spatial axes, 4 taps per axis, A = -0.75
  Area = 3,          // "area": adaptive average pooling to the output size
  NearestExact = 4,  // "nearest-exact": source floor((o + 0.5) * scale)
};
inline constexpr int64_t kNumInterpolateModes = 5;

// interpolate's attributes resolved (validated by infer_nn.cpp): per spatial axis, the scale a
// source coordinate is computed with when no align_corners: 1 / the user's scale factor when
// `scales` is given (PyTorch's scale_factor without recompute_scale_factor), else in / out.
struct InterpolateGeometry {
  InterpolateMode mode = InterpolateMode::Nearest;
  bool align_corners = false;
  bool has_scales = false;
  std::array<double, kMaxSpatial> scales{};  // the user's factors (out / in), when has_scales
  bool antialias = false;  // linear and bicubic on 2 axes: PyTorch's antialiased filters
};

inline InterpolateGeometry interpolate_geometry(const Attrs& attrs) {
  InterpolateGeometry g;
  g.mode = static_cast<InterpolateMode>(attrs.get_int(Attr::mode, 0));
  g.align_corners = attrs.get_bool(Attr::align_corners, false);
  g.antialias = attrs.get_bool(Attr::antialias, false);
  if (attrs.has(Attr::scales)) {
    const std::vector<double>& s = attrs.get_floats(Attr::scales);
    g.has_scales = true;
    for (size_t d = 0; d < s.size() && d < g.scales.size(); ++d) g.scales[d] = s[d];
  }
  return g;
}

}  // namespace tensord::ir
