#include "engine/backends/cuda/fft_strided_copy.h"

#include <cstring>

#include "engine/codegen/cuda_half_prelude.h"
#include "engine/ir/error.h"

namespace tensord::cuda {
namespace {

constexpr int kCopyMaxRank = ir::kMaxRank;

// The kernel's parameter block, byte for byte the CopyParams of the source below.
struct CopyParams {
  int64_t n;
  int32_t rank;
  int32_t triangle;
  int32_t herm_dim;
  int32_t pad;
  int64_t herm_n;
  double scale;
  int64_t shape[kCopyMaxRank];
  int64_t src_shape[kCopyMaxRank];
  int64_t src_stride[kCopyMaxRank];
  int64_t dst_stride[kCopyMaxRank];
};
static_assert(sizeof(CopyParams) == 40 + 4 * 8 * kCopyMaxRank);

// 16-bit floats widen by cuda_half_prelude()'s td_h2f / td_b2f (exact).
const char* const kSource = R"(
typedef long long i64;
#define MAXR 16
struct CopyParams {
  i64 n;
  int rank, triangle, herm_dim, pad;
  i64 herm_n;
  double scale;
  i64 shape[MAXR], src_shape[MAXR], src_stride[MAXR], dst_stride[MAXR];
};
struct c64 { float re, im; };
struct c128 { double re, im; };
struct f16 { unsigned short bits; };
struct bf16 { unsigned short bits; };

template <class R> __device__ void load(const f16* p, R& re, R& im) {
  re = (R)td_h2f(p->bits); im = (R)0;
}
template <class R> __device__ void load(const bf16* p, R& re, R& im) {
  re = (R)td_b2f(p->bits); im = (R)0;
}
template <class R> __device__ void load(const float* p, R& re, R& im) { re = (R)*p; im = (R)0; }
template <class R> __device__ void load(const double* p, R& re, R& im) { re = (R)*p; im = (R)0; }
template <class R> __device__ void load(const c64* p, R& re, R& im) { re = (R)p->re; im = (R)p->im; }
template <class R> __device__ void load(const c128* p, R& re, R& im) { re = (R)p->re; im = (R)p->im; }

template <class R> __device__ void store(float* p, R re, R) { *p = (float)re; }
template <class R> __device__ void store(double* p, R re, R) { *p = (double)re; }
template <class R> __device__ void store(c64* p, R re, R im) { p->re = (float)re; p->im = (float)im; }
template <class R> __device__ void store(c128* p, R re, R im) { p->re = (double)re; p->im = (double)im; }

template <class S, class D, class R>
__device__ void copy_body(const CopyParams& p, const S* src, D* dst) {
  const i64 step = (i64)gridDim.x * blockDim.x;
  for (i64 i = blockIdx.x * (i64)blockDim.x + threadIdx.x; i < p.n; i += step) {
    i64 rem = i, so = 0, dof = 0, row = 0, col = 0;
    bool inside = true, drop_im = false;
    for (int d = p.rank - 1; d >= 0; --d) {
      const i64 idx = rem % p.shape[d];
      rem /= p.shape[d];
      if (idx >= p.src_shape[d]) inside = false;
      so += idx * p.src_stride[d];
      dof += idx * p.dst_stride[d];
      if (d == p.rank - 1) col = idx;
      if (d == p.rank - 2) row = idx;
      if (d == p.herm_dim && (idx == 0 || (p.herm_n % 2 == 0 && idx == p.herm_n / 2))) drop_im = true;
    }
    if (p.triangle == 1 && col > row) inside = false;
    if (p.triangle == 2 && col < row) inside = false;
    R re = (R)0, im = (R)0;
    if (inside) load<R>(src + so, re, im);
    if (drop_im) im = (R)0;
    if (p.scale != 1.0) {
      re *= (R)p.scale;
      im *= (R)p.scale;
    }
    store<R>(dst + dof, re, im);
  }
}

#define COPY(SN, S, DN, D, R) \
  extern "C" __global__ void copy_##SN##_##DN(CopyParams p, const S* src, D* dst) { \
    copy_body<S, D, R>(p, src, dst); \
  }
#define COPY_TO(DN, D, R) \
  COPY(float16, f16, DN, D, R) COPY(bfloat16, bf16, DN, D, R) COPY(float32, float, DN, D, R) \
  COPY(float64, double, DN, D, R) COPY(complex64, c64, DN, D, R) COPY(complex128, c128, DN, D, R)
COPY_TO(float32, float, float)
COPY_TO(float64, double, double)
COPY_TO(complex64, c64, float)
COPY_TO(complex128, c128, double)
)";

bool is_copy_source(ir::DType t) {
  using ir::DType;
  return t == DType::Float16 || t == DType::BFloat16 || t == DType::Float32 ||
         t == DType::Float64 || t == DType::Complex64 || t == DType::Complex128;
}

bool is_copy_destination(ir::DType t) {
  using ir::DType;
  return t == DType::Float32 || t == DType::Float64 || t == DType::Complex64 ||
         t == DType::Complex128;
}

}  // namespace

const std::string& strided_copy_source() {
  static const std::string source = std::string(codegen::cuda_half_prelude()) + kSource;
  return source;
}

bool strided_copy_supports(ir::DType src, ir::DType dst) {
  return is_copy_source(src) && is_copy_destination(dst);
}

std::string strided_copy_kernel_name(ir::DType src, ir::DType dst) {
  return "copy_" + std::string(ir::name(src)) + "_" + std::string(ir::name(dst));
}

std::vector<int64_t> permuted_strides(const ir::Shape& shape, const std::vector<int>& order) {
  std::vector<int64_t> strides(shape.size(), 0);
  int64_t s = 1;
  for (size_t k = order.size(); k-- > 0;) {
    strides[static_cast<size_t>(order[k])] = s;
    s *= shape[static_cast<size_t>(order[k])];
  }
  return strides;
}

void strided_copy(CudaContext& ctx, const DeviceView& src, const ir::Shape& shape, void* dst,
                  ir::DType dst_dtype, const std::vector<int64_t>& dst_strides,
                  const CopyOptions& options) {
  const size_t rank = shape.size();
  if (rank > static_cast<size_t>(kCopyMaxRank) || src.shape.size() != rank ||
      src.strides.size() != rank || dst_strides.size() != rank) {
    throw Error(ErrorCode::Internal, "strided copy of rank " + std::to_string(rank) +
                                         " with a source of rank " +
                                         std::to_string(src.shape.size()) + " and " +
                                         std::to_string(src.strides.size()) + " strides");
  }
  if (!strided_copy_supports(src.dtype, dst_dtype)) {
    throw Error(ErrorCode::Unsupported, "the CUDA strided copy has no kernel from " +
                                            std::string(ir::name(src.dtype)) + " to " +
                                            std::string(ir::name(dst_dtype)));
  }
  CopyParams p;
  std::memset(&p, 0, sizeof(p));
  p.n = ir::numel(shape);
  if (p.n == 0) return;
  p.rank = static_cast<int32_t>(rank);
  p.triangle = options.triangle;
  p.herm_dim = options.herm_dim;
  p.herm_n = options.herm_n;
  p.scale = options.scale;
  for (size_t d = 0; d < rank; ++d) {
    p.shape[d] = shape[d];
    p.src_shape[d] = src.shape[d];
    p.src_stride[d] = src.strides[d];
    p.dst_stride[d] = dst_strides[d];
  }
  cudaKernel_t kernel =
      ctx.kernels.kernel(strided_copy_source(), strided_copy_kernel_name(src.dtype, dst_dtype));
  const void* s = src.data;
  void* args[] = {&p, &s, &dst};
  launch(kernel, grid_for(ctx, p.n), dim3(256), args, 0, ctx.stream, "strided copy kernel");
}

}  // namespace tensord::cuda
