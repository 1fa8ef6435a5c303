// The CUDA C of the neural-network family's own kernels (compiled by NVRTC through the kernel
// cache): one source per float dtype with pooling (what cuDNN lacks: indices, dilation, 3-d,
// ceil_mode windows, adaptive pools), interpolation (every mode), the direct convolution (cuDNN's
// fallback) and the CTC loss; and one dtype-free source that copies strided views and broadcasts a
// bias.
//
// Every kernel takes its sizes and strides in one struct of 64-bit fields, passed by value: the
// host structs below have the same layout as the device structs in the source text.
#pragma once

#include <cstdint>
#include <string>

#include "engine/ir/dtype.h"

namespace tensord::cuda::dnn {

inline constexpr int kCopyRank = 6;

// dnn_copy_<bytes>(const T* src, T* dst, CopyArgs): dst[dst offsets] = src[src offsets] over
// the index space `size` (row-major order of the first `rank` axes).
struct CopyArgs {
  int64_t n = 0, rank = 0;
  int64_t size[kCopyRank] = {}, src[kCopyRank] = {}, dst[kCopyRank] = {};
};

// dnn_fill_bias_<bytes>(const T* bias, T* y, BiasArgs): y (n = batch * c * inner, contiguous)
// gets bias[channel * bias_stride] everywhere.
struct BiasArgs {
  int64_t n = 0, c = 0, inner = 0, bias_stride = 0;
};

// Window and adaptive pools: x read through strides as (n, c) volumes of three spatial axes,
// the leading 3 - nd of them of size 1 (stride 0, the identity window); output contiguous.
// max: 1 for the max pools (which write each maximum's position in its plane to `indices`
// when that is not null), 0 for averages; adaptive: 1 for the adaptive pools (k, s, pad and
// dil unused).
struct PoolArgs {
  int64_t n, c, sn, sc, max, include_pad, adaptive, divisor;  // divisor: 0 or the override
  int64_t in[3], out[3], st[3], k[3], s[3], pad[3], dil[3];
};

// interpolate: x read through strides as (n, c) volumes of three spatial axes, the leading
// 3 - nd of them of size 1 (stride 0); output contiguous (n, c, out...). mode is
// ir::InterpolateMode's value; scales are the user's factors (out / in) per axis, 0 where
// none was given (padding axes, or no `scales` attribute).
struct InterpolateArgs {
  int64_t n, c, nd, mode, align_corners, in[3], out[3], sn, sc, st[3];
  double scales[3];
  int64_t antialias;  // linear and bicubic: PyTorch's antialiased filters
};

// Three spatial axes (leading ones of size 1 for conv1d/conv2d), as the CPU's direct loop.
struct ConvArgs {
  int64_t n, cin, cout, groups, transposed, has_bias, bias_stride;
  int64_t in[3], k[3], o[3], s[3], pad[3], dil[3];
  int64_t xs[5], ws[5];  // strides of x (N, C, spatial) and w (dim0, dim1, spatial)
};

// log_probs (T, N, C) through strides; the int64 block holds targets (N, S) then input and
// target lengths (N each); work holds 2 (2 S + 1) doubles per sample.
struct CtcArgs {
  int64_t t_max, n, c, s_max, blank, zero_inf, st_t, st_n, st_c;
};

// The source for one float dtype (Float32, Float64, Float16, BFloat16), and its entry points.
std::string kernel_source(ir::DType dtype);
inline constexpr const char* kPool = "dnn_pool";
inline constexpr const char* kInterpolate = "dnn_interpolate";
inline constexpr const char* kConvDirect = "dnn_conv_direct";
inline constexpr const char* kCtcAlpha = "dnn_ctc_alpha";
inline constexpr const char* kCtcReduce = "dnn_ctc_reduce";

// The dtype-free source: dnn_copy_{2,4,8} and dnn_fill_bias_{2,4,8}.
const std::string& copy_source();
std::string copy_kernel(size_t element_bytes);
std::string fill_bias_kernel(size_t element_bytes);

}  // namespace tensord::cuda::dnn
