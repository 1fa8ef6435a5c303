// The prelude, the strided copy and the dtype conversion sources (movement_sources.h).
#include "engine/backends/cuda/movement_sources.h"

#include "engine/codegen/cuda_half_prelude.h"

namespace tensord::cuda {
namespace {

// Element types by size, strided offsets, and the cast rules of docs/ops.md for one element
// (the CPU's engine/backends/cpu/scalar_cast.h): float -> integer truncates and saturates (NaN
// -> 0), anything -> bool is x != 0, integer -> narrower integer wraps, integer -> float rounds
// once, double -> 16-bit float rounds to odd in float first (no double rounding).
constexpr const char* kPrelude = R"(// tensord: creation, movement and index kernels
typedef long long td_i64;
typedef unsigned long long td_u64;
typedef unsigned int td_u32;
typedef unsigned short td_u16;
typedef unsigned char td_u8;
struct alignas(16) td_b16 { td_u64 lo, hi; };
#define TD_MAX_RANK 16
struct td_dims { td_i64 rank; td_i64 size[TD_MAX_RANK]; };
struct td_strides { td_i64 s[TD_MAX_RANK]; };

__device__ __forceinline__ td_i64 td_thread() {
  return (td_i64)blockIdx.x * blockDim.x + threadIdx.x;
}
__device__ __forceinline__ td_i64 td_threads() { return (td_i64)gridDim.x * blockDim.x; }

// The offsets of row-major position `flat` over `d` for two operands; I is the index type
// (32-bit divisions when the element count allows).
template <typename I>
__device__ __forceinline__ void td_offsets2(td_i64 flat, const td_dims& d, const td_strides& a,
                                            const td_strides& b, td_i64& oa, td_i64& ob) {
  I i = (I)flat;
  oa = 0;
  ob = 0;
#pragma unroll
  for (int k = TD_MAX_RANK - 1; k >= 0; --k) {
    if (k < d.rank) {
      const I size = (I)d.size[k];
      const I q = i / size;
      const I r = i - q * size;
      oa += (td_i64)r * a.s[k];
      ob += (td_i64)r * b.s[k];
      i = q;
    }
  }
}

// float(d) rounded to odd, so that one more rounding to a 16-bit float equals rounding d
// directly (the CPU's round_to_odd_float: nearest, then one step toward d when inexact and even).
__device__ __forceinline__ float td_round_odd(double d) {
  float f = __double2float_rn(d);
  if ((double)f != d && d == d) {
    td_u32 bits = __float_as_uint(f);
    if ((bits & 1u) == 0) f = __uint_as_float(fabs((double)f) < fabs(d) ? bits + 1 : bits - 1);
  }
  return f;
}

// One element of any dtype: integers and bool exactly in `i`, floats exactly in `re` (and `im`).
struct td_val { int is_int; td_i64 i; double re, im; };

// dtype codes: engine/ir/dtype.h's order.
enum { TD_BOOL, TD_I8, TD_U8, TD_I16, TD_I32, TD_I64, TD_F16, TD_BF16, TD_F32, TD_F64, TD_C64,
       TD_C128 };

__device__ __forceinline__ int td_itemsize(int code) {
  switch (code) {
    case TD_BOOL: case TD_I8: case TD_U8: return 1;
    case TD_I16: case TD_F16: case TD_BF16: return 2;
    case TD_I32: case TD_F32: return 4;
    case TD_C128: return 16;
    default: return 8;
  }
}

__device__ td_val td_load(const char* p, int code) {
  td_val v;
  v.is_int = code <= TD_I64;
  v.i = 0;
  v.re = 0;
  v.im = 0;
  switch (code) {
    case TD_BOOL: v.i = *(const td_u8*)p != 0; break;
    case TD_I8: v.i = *(const signed char*)p; break;
    case TD_U8: v.i = *(const td_u8*)p; break;
    case TD_I16: v.i = *(const short*)p; break;
    case TD_I32: v.i = *(const int*)p; break;
    case TD_I64: v.i = *(const td_i64*)p; break;
    case TD_F16: v.re = td_h2f(*(const td_u16*)p); break;
    case TD_BF16: v.re = td_b2f(*(const td_u16*)p); break;
    case TD_F32: v.re = *(const float*)p; break;
    case TD_F64: v.re = *(const double*)p; break;
    case TD_C64: v.re = ((const float*)p)[0]; v.im = ((const float*)p)[1]; break;
    default: v.re = ((const double*)p)[0]; v.im = ((const double*)p)[1]; break;
  }
  return v;
}

// Float -> integer: truncation toward zero, saturation at [lo, hi), NaN -> 0.
__device__ __forceinline__ td_i64 td_sat(double x, double lo, double hi, td_i64 min, td_i64 max) {
  if (x != x) return 0;
  const double t = trunc(x);
  if (t >= hi) return max;
  if (t < lo) return min;
  return (td_i64)t;
}
__device__ __forceinline__ td_i64 td_to_int(const td_val& v, int code) {
  if (v.is_int) return v.i;  // the store wraps
  switch (code) {
    case TD_I8: return td_sat(v.re, -128.0, 128.0, -128, 127);
    case TD_U8: return td_sat(v.re, 0.0, 256.0, 0, 255);
    case TD_I16: return td_sat(v.re, -32768.0, 32768.0, -32768, 32767);
    case TD_I32: return td_sat(v.re, -2147483648.0, 2147483648.0, -2147483647ll - 1, 2147483647ll);
    default:
      return td_sat(v.re, -9223372036854775808.0, 9223372036854775808.0,
                    -9223372036854775807ll - 1, 9223372036854775807ll);
  }
}
__device__ __forceinline__ float td_to_f32(const td_val& v) {
  return v.is_int ? (float)v.i : __double2float_rn(v.re);
}
__device__ __forceinline__ double td_to_f64(const td_val& v) {
  return v.is_int ? (double)v.i : v.re;
}
__device__ __forceinline__ float td_to_half_src(const td_val& v) {
  return td_round_odd(v.is_int ? (double)v.i : v.re);
}

__device__ void td_store(char* p, int code, const td_val& v) {
  switch (code) {
    case TD_BOOL: *(td_u8*)p = v.is_int ? v.i != 0 : (v.re != 0 || v.im != 0); break;
    case TD_I8: case TD_U8: *(td_u8*)p = (td_u8)(td_u64)td_to_int(v, code); break;
    case TD_I16: *(td_u16*)p = (td_u16)(td_u64)td_to_int(v, code); break;
    case TD_I32: *(td_u32*)p = (td_u32)(td_u64)td_to_int(v, code); break;
    case TD_I64: *(td_i64*)p = td_to_int(v, code); break;
    case TD_F16: *(td_u16*)p = td_f2h(td_to_half_src(v)); break;
    case TD_BF16: *(td_u16*)p = td_f2b(td_to_half_src(v)); break;
    case TD_F32: *(float*)p = td_to_f32(v); break;
    case TD_F64: *(double*)p = td_to_f64(v); break;
    case TD_C64:
      ((float*)p)[0] = td_to_f32(v);
      ((float*)p)[1] = v.is_int ? 0.0f : __double2float_rn(v.im);
      break;
    default:
      ((double*)p)[0] = td_to_f64(v);
      ((double*)p)[1] = v.is_int ? 0.0 : v.im;
      break;
  }
}
)";

// Copies by item size. The xor mask (lo, hi) conjugates complex items by flipping the sign bit
// of their imaginary part (complex64: bit 63 of the 8-byte item; complex128: bit 63 of its
// high word), exactly what negation does, NaN included.
constexpr const char* kCopy = R"(
template <typename T> struct td_mask {
  __device__ static T make(td_u64 lo, td_u64) { return (T)lo; }
  __device__ static T flip(T v, td_u64 lo, td_u64) { return (T)(v ^ (T)lo); }
};
template <> struct td_mask<td_b16> {
  __device__ static td_b16 make(td_u64 lo, td_u64 hi) { td_b16 v; v.lo = lo; v.hi = hi; return v; }
  __device__ static td_b16 flip(td_b16 v, td_u64 lo, td_u64 hi) {
    v.lo ^= lo;
    v.hi ^= hi;
    return v;
  }
};

template <typename T, typename I>
__device__ void td_copy(char* dst, const char* src, td_i64 n, const td_dims& d,
                        const td_strides& ds, const td_strides& ss, td_u64 lo, td_u64 hi) {
  T* out = (T*)dst;
  const T* in = (const T*)src;
  for (td_i64 i = td_thread(); i < n; i += td_threads()) {
    td_i64 od, os;
    td_offsets2<I>(i, d, ds, ss, od, os);
    out[od] = td_mask<T>::flip(in[os], lo, hi);
  }
}

// A transpose: the destination is contiguous along dimension `b` (its last), the source along
// dimension `a`. 32 x 32 tiles go through shared memory so that reads and writes are both
// coalesced; the other dimensions (`rest`) enumerate tiles with the tile index.
template <typename T>
__device__ void td_transpose(char* dst, const char* src, td_i64 size_a, td_i64 size_b,
                             td_i64 src_b, td_i64 dst_a, td_i64 batches, const td_dims& rest,
                             const td_strides& rest_d, const td_strides& rest_s, td_u64 lo,
                             td_u64 hi) {
  __shared__ T tile[32][33];
  T* out = (T*)dst;
  const T* in = (const T*)src;
  const td_i64 tiles_a = (size_a + 31) / 32, tiles_b = (size_b + 31) / 32;
  const td_i64 tiles = tiles_a * tiles_b * batches;
  for (td_i64 t = blockIdx.x; t < tiles; t += gridDim.x) {
    const td_i64 tb = t % tiles_b, ta = (t / tiles_b) % tiles_a, batch = t / (tiles_a * tiles_b);
    td_i64 od, os;
    td_offsets2<td_u64>(batch, rest, rest_d, rest_s, od, os);
    const td_i64 a0 = ta * 32, b0 = tb * 32;
    for (int j = threadIdx.y; j < 32; j += 8) {
      const td_i64 a = a0 + threadIdx.x, b = b0 + j;
      if (a < size_a && b < size_b) tile[j][threadIdx.x] = in[os + a + b * src_b];
    }
    __syncthreads();
    for (int j = threadIdx.y; j < 32; j += 8) {
      const td_i64 a = a0 + j, b = b0 + threadIdx.x;
      if (a < size_a && b < size_b) out[od + a * dst_a + b] = td_mask<T>::flip(tile[threadIdx.x][j], lo, hi);
    }
    __syncthreads();
  }
}

#define TD_COPY(N, T)                                                                           \
  extern "C" __global__ void td_copy##N##_i32(char* dst, const char* src, td_i64 n, td_dims d,  \
                                              td_strides ds, td_strides ss, td_u64 lo,          \
                                              td_u64 hi) {                                      \
    td_copy<T, td_u32>(dst, src, n, d, ds, ss, lo, hi);                                         \
  }                                                                                             \
  extern "C" __global__ void td_copy##N##_i64(char* dst, const char* src, td_i64 n, td_dims d,  \
                                              td_strides ds, td_strides ss, td_u64 lo,          \
                                              td_u64 hi) {                                      \
    td_copy<T, td_u64>(dst, src, n, d, ds, ss, lo, hi);                                         \
  }                                                                                             \
  extern "C" __global__ void td_transpose##N(char* dst, const char* src, td_i64 size_a,         \
                                             td_i64 size_b, td_i64 src_b, td_i64 dst_a,         \
                                             td_i64 batches, td_dims rest, td_strides rest_d,   \
                                             td_strides rest_s, td_u64 lo, td_u64 hi) {         \
    td_transpose<T>(dst, src, size_a, size_b, src_b, dst_a, batches, rest, rest_d, rest_s, lo,  \
                    hi);                                                                        \
  }                                                                                             \
  extern "C" __global__ void td_fill##N(char* dst, td_i64 n, td_i64 stride, td_u64 lo,          \
                                        td_u64 hi) {                                            \
    T* out = (T*)dst;                                                                           \
    const T v = td_mask<T>::make(lo, hi);                                                       \
    for (td_i64 i = td_thread(); i < n; i += td_threads()) out[i * stride] = v;                 \
  }
TD_COPY(1, td_u8)
TD_COPY(2, td_u16)
TD_COPY(4, td_u32)
TD_COPY(8, td_u64)
TD_COPY(16, td_b16)
)";

// Any dtype to any dtype, both strided; `conj` negates the imaginary part of complex sources.
constexpr const char* kConvert = R"(
extern "C" __global__ void td_convert(char* dst, int dst_code, const char* src, int src_code,
                                      td_i64 n, td_dims d, td_strides ds, td_strides ss,
                                      int conj) {
  const td_i64 dsize = td_itemsize(dst_code), ssize = td_itemsize(src_code);
  for (td_i64 i = td_thread(); i < n; i += td_threads()) {
    td_i64 od, os;
    td_offsets2<td_u64>(i, d, ds, ss, od, os);
    td_val v = td_load(src + os * ssize, src_code);
    if (conj) v.im = -v.im;
    td_store(dst + od * dsize, dst_code, v);
  }
}
)";

}  // namespace

const std::string& movement_prelude() {
  static const std::string text = std::string(codegen::cuda_half_prelude()) + kPrelude;
  return text;
}

const std::string& copy_kernel_source() {
  static const std::string text = movement_prelude() + kCopy;
  return text;
}

const std::string& convert_kernel_source() {
  static const std::string text = movement_prelude() + kConvert;
  return text;
}

namespace {

KernelSource copy_entry() {
  std::vector<std::string> entries;
  for (const char* n : {"1", "2", "4", "8", "16"}) {
    entries.push_back(std::string("td_copy") + n + "_i32");
    entries.push_back(std::string("td_copy") + n + "_i64");
    entries.push_back(std::string("td_transpose") + n);
    entries.push_back(std::string("td_fill") + n);
  }
  return {"td_copy.cu", &copy_kernel_source(), entries};
}

KernelSource convert_entry() {
  return {"td_convert.cu", &convert_kernel_source(), {"td_convert"}};
}

}  // namespace

std::vector<KernelSource> creation_kernel_sources() {
  return {{"td_creation.cu", &creation_kernel_source(), {"td_arange", "td_random"}}, copy_entry()};
}

std::vector<KernelSource> movement_kernel_sources() {
  return {copy_entry(), convert_entry()};
}

std::vector<KernelSource> index_kernel_sources() {
  std::vector<std::string> gathers;
  for (const char* n : {"1", "2", "4", "8", "16"}) {
    gathers.push_back(std::string("td_gather") + n + "_i32");
    gathers.push_back(std::string("td_gather") + n + "_i64");
  }
  return {{"td_gather.cu", &gather_kernel_source(), gathers},
          {"td_index.cu",
           &index_kernel_source(),
           {"td_check_index", "td_scatter_winner", "td_scatter_write", "td_scatter_add_f64",
            "td_scatter_add_i64", "td_scatter_count", "td_fill_counted", "td_scatter_combine_f64",
            "td_scatter_combine_i64", "td_scatter_mean_f64", "td_scatter_mean_i64", "td_put_winner",
            "td_put_write", "td_put_add_f64", "td_put_add_i64", "td_search_f64", "td_search_i64"}},
          copy_entry(),
          convert_entry()};
}

}  // namespace tensord::cuda
