#include "engine/backends/cuda/solver_kernels.h"

#include "engine/ir/error.h"

namespace tensord::cuda {
namespace {

// Every kernel loops with a grid stride over its items, int64 indices throughout. The
// arithmetic follows the CPU kernels (kernels_linalg.cpp, kernels_distance.cpp) operation for
// operation where it can: the same products in the same order, sums of distances in double.
const char* const kSource = R"(
typedef long long i64;

__device__ inline float t_abs(float x) { return fabsf(x); }
__device__ inline double t_abs(double x) { return fabs(x); }
__device__ inline float t_log(float x) { return logf(x); }
__device__ inline double t_log(double x) { return log(x); }
__device__ inline float t_neg_inf(float) { return __int_as_float(0xff800000); }
__device__ inline double t_neg_inf(double) { return __longlong_as_double(0xfff0000000000000LL); }
__device__ inline float t_nan(float) { return __int_as_float(0x7fc00000); }
__device__ inline double t_nan(double) { return __longlong_as_double(0x7ff8000000000000LL); }

#define GRID_LOOP(i, n) \
  for (i64 i = blockIdx.x * (i64)blockDim.x + threadIdx.x; i < (n); i += (i64)gridDim.x * blockDim.x)

// count row-major rows x cols identity matrices.
template <class T> __device__ void eye_body(T* y, i64 count, i64 rows, i64 cols) {
  GRID_LOOP(t, count * rows * cols) {
    const i64 e = t % (rows * cols);
    y[t] = (e / cols == e % cols) ? (T)1 : (T)0;
  }
}

// flag[b] = 1 where matrix b (nn elements) holds a NaN; flag zeroed before. getrf does not
// carry a NaN to the diagonal reliably (cuSOLVER gave det [[1, nan], [2, 3]] = 3 on an H200),
// LAPACK's does: det and slogdet take the flag.
template <class T> __device__ void has_nan_body(const T* a, i64 count, i64 nn, int* flag) {
  GRID_LOOP(t, count * nn) {
    if (a[t] != a[t]) flag[t / nn] = 1;
  }
}

// det from getrf's factors (any layout: the diagonal and the pivots are all it reads).
template <class T>
__device__ void lu_det_body(const T* lu, const int* ipiv, const int* nan, i64 count, i64 n,
                            T* det) {
  GRID_LOOP(b, count) {
    const T* a = lu + b * n * n;
    const int* pv = ipiv + b * n;
    T d = (T)1;
    for (i64 i = 0; i < n; ++i) {
      d *= a[i * n + i];
      if (pv[i] != i + 1) d = -d;
    }
    det[b] = nan[b] ? t_nan(d) : d;
  }
}

template <class T>
__device__ void lu_slogdet_body(const T* lu, const int* ipiv, const int* nan, i64 count, i64 n,
                                T* sign, T* logabs) {
  GRID_LOOP(b, count) {
    const T* a = lu + b * n * n;
    const int* pv = ipiv + b * n;
    T s = (T)1, l = (T)0;
    for (i64 i = 0; i < n; ++i) {
      const T u = a[i * n + i];
      if (u < (T)0) s = -s;
      if (pv[i] != i + 1) s = -s;
      l += t_log(t_abs(u));
      if (u == (T)0) s = (T)0;
      if (u != u) s = u;
    }
    if (s == (T)0) l = t_neg_inf(l);
    if (nan[b]) s = l = t_nan(l);
    sign[b] = s;
    logabs[b] = l;
  }
}

// The cutoff of pinv, matrix_rank and lstsq: max(atol, rtol * max |s|).
template <class T> __device__ double cutoff_of(const T* s, i64 k, double atol, double rtol) {
  double largest = 0;
  for (i64 l = 0; l < k; ++l) {
    const double v = (double)t_abs(s[l]);
    if (v > largest) largest = v;
  }
  const double r = rtol * largest;
  return atol > r ? atol : r;
}

// y (count, n, m) = V diag(1/s) U^T over the s above the cutoff, where V(i, l) = v[l*vs0 +
// i*vs1] and U(j, l) = u[j*us0 + l*us1] (each matrix at its batch stride).
template <class T>
__device__ void pinv_body(const T* u, i64 ub, i64 us0, i64 us1, const T* s, i64 sb, const T* v,
                          i64 vb, i64 vs0, i64 vs1, i64 count, i64 m, i64 n, i64 k, double atol,
                          double rtol, T* y) {
  GRID_LOOP(t, count * n * m) {
    const i64 b = t / (n * m), i = (t / m) % n, j = t % m;
    const T* sv = s + b * sb;
    const double cutoff = cutoff_of(sv, k, atol, rtol);
    T acc = (T)0;
    for (i64 l = 0; l < k; ++l) {
      if (!((double)t_abs(sv[l]) > cutoff)) continue;
      const T vil = v[b * vb + l * vs0 + i * vs1];
      if (vil == (T)0) continue;
      const T f = vil * ((T)1 / sv[l]);
      acc += f * u[b * ub + j * us0 + l * us1];
    }
    y[t] = acc;
  }
}

template <class T>
__device__ void rank_body(const T* s, i64 sb, i64 count, i64 k, double atol, double rtol,
                          i64* out) {
  GRID_LOOP(b, count) {
    const T* sv = s + b * sb;
    const double cutoff = cutoff_of(sv, k, atol, rtol);
    i64 r = 0;
    for (i64 l = 0; l < k; ++l) r += (double)t_abs(sv[l]) > cutoff ? 1 : 0;
    out[b] = r;
  }
}

// x (count, n, r) = p (count, n, m) @ b (count, m, r), summed in double.
template <class T>
__device__ void bmm_body(const T* p, const T* bm, i64 count, i64 n, i64 m, i64 r, T* x) {
  GRID_LOOP(t, count * n * r) {
    const i64 b = t / (n * r), i = (t / r) % n, c = t % r;
    const T* pr = p + (b * n + i) * m;
    const T* bc = bm + b * m * r + c;
    double acc = 0;
    for (i64 j = 0; j < m; ++j) acc += (double)pr[j] * (double)bc[j * r];
    x[t] = (T)acc;
  }
}

// out (count, r) = |A x - b|^2 per column: A (count, m, n), x (count, n, r), b (count, m, r),
// summed in double as the CPU's rank-deficient branch (-b first, then the products in order).
template <class T>
__device__ void residuals_body(const T* a, const T* x, const T* bm, i64 count, i64 m, i64 n, i64 r,
                               T* out) {
  GRID_LOOP(t, count * r) {
    const i64 b = t / r, c = t % r;
    double sum = 0;
    for (i64 i = 0; i < m; ++i) {
      double v = -(double)bm[(b * m + i) * r + c];
      for (i64 j = 0; j < n; ++j) {
        v += (double)a[(b * m + i) * n + j] * (double)x[(b * n + j) * r + c];
      }
      sum += v * v;
    }
    out[t] = (T)sum;
  }
}

// kind: 0 general p, 1 p = 1, 2 p = 2, 3 p = 0 (count of differing coordinates), 4 p = inf.
template <class T>
__device__ T distance(const T* u, const T* v, i64 m, int kind, double p) {
  double acc = 0;
  if (kind == 2) {
    for (i64 k = 0; k < m; ++k) {
      const double d = (double)u[k] - (double)v[k];
      acc += d * d;
    }
    return (T)sqrt(acc);
  }
  if (kind == 1) {
    for (i64 k = 0; k < m; ++k) acc += fabs((double)u[k] - (double)v[k]);
    return (T)acc;
  }
  if (kind == 3) {
    for (i64 k = 0; k < m; ++k) {
      const double d = (double)u[k] - (double)v[k];
      acc += d != 0 ? 1.0 : (d == d ? 0.0 : d);
    }
    return (T)acc;
  }
  if (kind == 4) {
    for (i64 k = 0; k < m; ++k) {
      const double d = fabs((double)u[k] - (double)v[k]);
      acc = (d > acc || d != d) ? d : acc;
      if (acc != acc) break;
    }
    return (T)acc;
  }
  for (i64 k = 0; k < m; ++k) acc += pow(fabs((double)u[k] - (double)v[k]), p);
  return (T)pow(acc, 1.0 / p);
}

// y (count, P, R): rows of x1 (count, P, M) against rows of x2 (count, R, M), contiguous.
template <class T>
__device__ void cdist_body(const T* x1, const T* x2, i64 count, i64 P, i64 R, i64 M, int kind,
                           double p, T* y) {
  GRID_LOOP(t, count * P * R) {
    const i64 b = t / (P * R), i = (t / R) % P, j = t % R;
    y[t] = distance(x1 + (b * P + i) * M, x2 + (b * R + j) * M, M, kind, p);
  }
}

// y (n (n - 1) / 2): the pairs i < j of rows of x (n, M) in row-major order of the pairs.
template <class T>
__device__ void pdist_body(const T* x, i64 n, i64 M, int kind, double p, T* y) {
  GRID_LOOP(t, n * n) {
    const i64 i = t / n, j = t % n;
    if (j <= i) continue;
    y[i * n - i * (i + 1) / 2 + (j - i - 1)] = distance(x + i * M, x + j * M, M, kind, p);
  }
}

#define ENTRIES(TN, T) \
  extern "C" __global__ void eye_##TN(T* y, i64 count, i64 rows, i64 cols) { \
    eye_body<T>(y, count, rows, cols); \
  } \
  extern "C" __global__ void has_nan_##TN(const T* a, i64 count, i64 nn, int* flag) { \
    has_nan_body<T>(a, count, nn, flag); \
  } \
  extern "C" __global__ void lu_det_##TN(const T* lu, const int* ipiv, const int* nan, i64 count, \
                                         i64 n, T* det) { \
    lu_det_body<T>(lu, ipiv, nan, count, n, det); \
  } \
  extern "C" __global__ void lu_slogdet_##TN(const T* lu, const int* ipiv, const int* nan, \
                                             i64 count, i64 n, T* sign, T* logabs) { \
    lu_slogdet_body<T>(lu, ipiv, nan, count, n, sign, logabs); \
  } \
  extern "C" __global__ void pinv_##TN(const T* u, i64 ub, i64 us0, i64 us1, const T* s, i64 sb, \
                                       const T* v, i64 vb, i64 vs0, i64 vs1, i64 count, i64 m, \
                                       i64 n, i64 k, double atol, double rtol, T* y) { \
    pinv_body<T>(u, ub, us0, us1, s, sb, v, vb, vs0, vs1, count, m, n, k, atol, rtol, y); \
  } \
  extern "C" __global__ void rank_##TN(const T* s, i64 sb, i64 count, i64 k, double atol, \
                                       double rtol, i64* out) { \
    rank_body<T>(s, sb, count, k, atol, rtol, out); \
  } \
  extern "C" __global__ void bmm_##TN(const T* p, const T* b, i64 count, i64 n, i64 m, i64 r, \
                                      T* x) { \
    bmm_body<T>(p, b, count, n, m, r, x); \
  } \
  extern "C" __global__ void residuals_##TN(const T* a, const T* x, const T* b, i64 count, i64 m, \
                                            i64 n, i64 r, T* out) { \
    residuals_body<T>(a, x, b, count, m, n, r, out); \
  } \
  extern "C" __global__ void cdist_##TN(const T* x1, const T* x2, i64 count, i64 P, i64 R, i64 M, \
                                        int kind, double p, T* y) { \
    cdist_body<T>(x1, x2, count, P, R, M, kind, p, y); \
  } \
  extern "C" __global__ void pdist_##TN(const T* x, i64 n, i64 M, int kind, double p, T* y) { \
    pdist_body<T>(x, n, M, kind, p, y); \
  }
ENTRIES(float32, float)
ENTRIES(float64, double)
)";

constexpr const char* kBases[] = {"eye",  "has_nan", "lu_det",    "lu_slogdet", "pinv",
                                  "rank", "bmm",     "residuals", "cdist",      "pdist"};

}  // namespace

const std::string& solver_kernels_source() {
  static const std::string source = kSource;
  return source;
}

std::vector<std::string> solver_kernel_names() {
  std::vector<std::string> names;
  for (const char* base : kBases) {
    names.push_back(std::string(base) + "_float32");
    names.push_back(std::string(base) + "_float64");
  }
  return names;
}

cudaKernel_t solver_kernel(CudaContext& ctx, const std::string& base, ir::DType t) {
  if (t != ir::DType::Float32 && t != ir::DType::Float64) {
    throw Error(ErrorCode::Internal, "no " + base + " kernel for " + std::string(ir::name(t)));
  }
  return ctx.kernels.kernel(solver_kernels_source(), base + "_" + std::string(ir::name(t)));
}

}  // namespace tensord::cuda
