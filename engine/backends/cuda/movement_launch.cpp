#include "engine/backends/cuda/movement_launch.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <map>
#include <mutex>

#include "engine/backends/cuda/cuda_check.h"
#include "engine/backends/cuda/movement_sources.h"
#include "engine/ir/error.h"
#include "engine/ir/half.h"

namespace tensord::cuda::movement {
namespace {

// The kernels of the copy source for one item size.
struct CopyKernels {
  cudaKernel_t copy_i32, copy_i64, transpose, fill;
};

// Loaded kernels by (source text address, entry name); the texts are static.
class KernelMemo final : public FamilyState {
 public:
  cudaKernel_t get(CudaKernelCache& cache, const std::string& source, const std::string& name) {
    std::lock_guard lock(mutex_);
    auto key = std::make_pair(&source, name);
    auto it = kernels_.find(key);
    if (it != kernels_.end()) return it->second;
    cudaKernel_t k = cache.kernel(source, name);
    kernels_.emplace(std::move(key), k);
    return k;
  }

 private:
  std::mutex mutex_;
  std::map<std::pair<const std::string*, std::string>, cudaKernel_t> kernels_;
};

std::mutex g_memo_mutex;  // creates the per-backend memo once

CopyKernels copy_kernels(CudaContext& ctx, size_t itemsize) {
  const std::string n = std::to_string(itemsize);
  const std::string& src = copy_kernel_source();
  return {kernel(ctx, src, "td_copy" + n + "_i32"), kernel(ctx, src, "td_copy" + n + "_i64"),
          kernel(ctx, src, "td_transpose" + n), kernel(ctx, src, "td_fill" + n)};
}

// The copy's dimensions with size-1 ones dropped and neighbours merged where both operands walk
// them as one (so a contiguous pair becomes one dimension).
struct Walk {
  int rank = 0;
  int64_t size[ir::kMaxRank];
  int64_t ds[ir::kMaxRank];
  int64_t ss[ir::kMaxRank];
};

Walk coalesce(std::span<const int64_t> shape, const StridedView& dst, const StridedView& src) {
  Walk w;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1) continue;
    if (w.rank > 0) {
      const int j = w.rank - 1;
      // Dimension j (outer) and d (inner) merge when stepping j is stepping d size[d] times.
      if (w.ds[j] == dst.strides[d] * shape[d] && w.ss[j] == src.strides[d] * shape[d]) {
        w.size[j] *= shape[d];
        w.ds[j] = dst.strides[d];
        w.ss[j] = src.strides[d];
        continue;
      }
    }
    w.size[w.rank] = shape[d];
    w.ds[w.rank] = dst.strides[d];
    w.ss[w.rank] = src.strides[d];
    ++w.rank;
  }
  return w;
}

void pack(const Walk& w, DeviceDims& dims, DeviceStrides& ds, DeviceStrides& ss) {
  dims.rank = w.rank;
  for (int d = 0; d < w.rank; ++d) {
    dims.size[d] = w.size[d];
    ds.s[d] = w.ds[d];
    ss.s[d] = w.ss[d];
  }
}

Pattern conj_mask(ir::DType t, bool conj) {
  if (!conj) return {};
  if (t == ir::DType::Complex64) return {uint64_t{1} << 63, 0};
  if (t == ir::DType::Complex128) return {0, uint64_t{1} << 63};
  return {};
}

// A permute's copy: the destination runs along its last dimension, the source along another
// one. Returns false when the walk is not of that form.
bool try_transpose(CudaContext& ctx, const Walk& w, const StridedView& dst, const StridedView& src,
                   size_t itemsize, const Pattern& mask) {
  const int b = w.rank - 1;
  if (w.rank < 2 || w.ds[b] != 1 || w.ss[b] == 1) return false;
  int a = -1;
  for (int d = 0; d < b; ++d) {
    if (w.ss[d] == 1) a = d;
  }
  if (a < 0 || w.size[a] < 8 || w.size[b] < 8) return false;
  DeviceDims rest;
  DeviceStrides rest_d, rest_s;
  int64_t batches = 1;
  for (int d = 0; d < b; ++d) {
    if (d == a) continue;
    rest.size[rest.rank] = w.size[d];
    rest_d.s[rest.rank] = w.ds[d];
    rest_s.s[rest.rank] = w.ss[d];
    ++rest.rank;
    batches *= w.size[d];
  }
  int64_t size_a = w.size[a], size_b = w.size[b], src_b = w.ss[b], dst_a = w.ds[a];
  const int64_t tiles = ((size_a + 31) / 32) * ((size_b + 31) / 32) * batches;
  const int64_t cap = int64_t{ctx.sm_count} * 16;
  dim3 grid(static_cast<unsigned>(std::max<int64_t>(1, std::min(tiles, cap))));
  char* d = dst.data;
  const char* s = src.data;
  uint64_t lo = mask.lo, hi = mask.hi;
  void* args[] = {&d,       &s,    &size_a, &size_b, &src_b, &dst_a,
                  &batches, &rest, &rest_d, &rest_s, &lo,    &hi};
  launch(copy_kernels(ctx, itemsize).transpose, grid, dim3(32, 8), args, 0, ctx.stream,
         "td_transpose");
  return true;
}

// The widest item (16, 8 or 4 bytes) that moves the copy's rows whole: both operands
// contiguous along the last dimension, whose byte length, the other strides in bytes and both
// addresses divide by it. Permutes that keep the last axis (attention heads) copy 16 bytes a
// thread this way.
size_t widened_item(const Walk& w, const char* dst, const char* src, size_t item) {
  if (w.rank == 0) return item;
  const int last = w.rank - 1;
  if (w.ds[last] != 1 || w.ss[last] != 1) return item;
  for (size_t wide : {size_t{16}, size_t{8}, size_t{4}}) {
    if (wide <= item) break;
    const auto bytes = static_cast<int64_t>(wide);
    const auto it = static_cast<int64_t>(item);
    bool ok = (w.size[last] * it) % bytes == 0 && reinterpret_cast<uintptr_t>(dst) % wide == 0 &&
              reinterpret_cast<uintptr_t>(src) % wide == 0;
    for (int j = 0; ok && j < last; ++j) {
      ok = (w.ds[j] * it) % bytes == 0 && (w.ss[j] * it) % bytes == 0;
    }
    if (ok) return wide;
  }
  return item;
}

// cast_scalar's rules on the host, for fills.
float round_to_odd_float(double d) {
  float f = static_cast<float>(d);
  if (static_cast<double>(f) != d && !std::isnan(d)) {
    uint32_t bits = std::bit_cast<uint32_t>(f);
    if ((bits & 1u) == 0) f = std::nextafter(f, static_cast<float>(d > f ? INFINITY : -INFINITY));
  }
  return f;
}

template <typename To>
uint64_t saturate(double v) {
  if (std::isnan(v)) return 0;
  const double t = std::trunc(v);
  const double hi =
      std::ldexp(1.0, static_cast<int>(sizeof(To) * 8 - (std::is_signed_v<To> ? 1 : 0)));
  const double lo = std::is_signed_v<To> ? -hi : 0.0;
  To r;
  if (t >= hi) {
    r = std::numeric_limits<To>::max();
  } else if (t < lo) {
    r = std::numeric_limits<To>::min();
  } else {
    r = static_cast<To>(t);
  }
  return static_cast<uint64_t>(static_cast<std::make_unsigned_t<To>>(r));
}

template <typename To>
uint64_t to_int(bool is_int, int64_t i, double d) {
  if (is_int)
    return static_cast<uint64_t>(static_cast<std::make_unsigned_t<To>>(static_cast<To>(i)));
  return saturate<To>(d);
}

}  // namespace

cudaKernel_t kernel(CudaContext& ctx, const std::string& source, const std::string& name) {
  KernelMemo* memo = nullptr;
  {
    std::lock_guard lock(g_memo_mutex);
    if (!ctx.states.movement) ctx.states.movement = std::make_unique<KernelMemo>();
    memo = static_cast<KernelMemo*>(ctx.states.movement.get());
  }
  return memo->get(ctx.kernels, source, name);
}

int dtype_code(ir::DType t) {
  return static_cast<int>(t);
}

dim3 grid_of(const CudaContext& ctx, int64_t n) {
  return grid_for(ctx, n, static_cast<int>(kThreads));
}

void unsupported(ir::Op op, ir::DType dtype, const std::string& why) {
  throw Error(ErrorCode::Unsupported, "the CUDA backend does not run " + std::string(ir::name(op)) +
                                          " on " + std::string(ir::name(dtype)) +
                                          (why.empty() ? "" : ": " + why));
}

StridedView view_of(const engine::TensorValue& v) {
  StridedView s;
  s.data = static_cast<char*>(v.raw());
  s.dtype = v.type.dtype;
  s.strides =
      v.strides.size() == v.type.shape.size() ? v.strides : ir::contiguous_strides(v.type.shape);
  return s;
}

void narrow(StridedView& v, std::vector<int64_t>& shape, int axis, int64_t start, int64_t size) {
  v.data += start * v.strides[axis] * static_cast<int64_t>(ir::itemsize(v.dtype));
  shape[axis] = size;
}

void copy(CudaContext& ctx, std::span<const int64_t> shape, const StridedView& dst,
          const StridedView& src, bool conj) {
  const int64_t n = ir::numel(shape);
  if (n == 0) return;
  const Walk w = coalesce(shape, dst, src);
  DeviceDims dims;
  DeviceStrides ds, ss;
  pack(w, dims, ds, ss);
  char* d = dst.data;
  const char* s = src.data;
  int64_t count = n;
  if (dst.dtype != src.dtype) {
    int dcode = dtype_code(dst.dtype), scode = dtype_code(src.dtype), flag = conj ? 1 : 0;
    void* args[] = {&d, &dcode, &s, &scode, &count, &dims, &ds, &ss, &flag};
    launch(kernel(ctx, convert_kernel_source(), "td_convert"), grid_of(ctx, n), dim3(kThreads),
           args, 0, ctx.stream, "td_convert");
    return;
  }
  const size_t item = ir::itemsize(dst.dtype);
  const Pattern mask = conj_mask(dst.dtype, conj);
  const bool plain = mask.lo == 0 && mask.hi == 0;
  if (plain && (w.rank == 0 || (w.rank == 1 && w.ds[0] == 1 && w.ss[0] == 1))) {
    check(
        cudaMemcpyAsync(d, s, static_cast<size_t>(n) * item, cudaMemcpyDeviceToDevice, ctx.stream),
        "cudaMemcpyAsync (contiguous copy)");
    return;
  }
  constexpr int64_t kMaxPitch = int64_t{1} << 30;  // well inside cudaMemcpy2D's limits
  if (plain && w.rank == 2 && w.ds[1] == 1 && w.ss[1] == 1 && w.ds[0] >= w.size[1] &&
      w.ss[0] >= w.size[1] && w.ds[0] * static_cast<int64_t>(item) < kMaxPitch &&
      w.ss[0] * static_cast<int64_t>(item) < kMaxPitch) {
    // Rows of contiguous elements at two pitches: the copy engine's 2-D copy.
    check(cudaMemcpy2DAsync(d, static_cast<size_t>(w.ds[0]) * item, s,
                            static_cast<size_t>(w.ss[0]) * item,
                            static_cast<size_t>(w.size[1]) * item, static_cast<size_t>(w.size[0]),
                            cudaMemcpyDeviceToDevice, ctx.stream),
          "cudaMemcpy2DAsync (strided copy)");
    return;
  }
  if (try_transpose(ctx, w, dst, src, item, mask)) return;
  size_t wide = item;
  if (plain) {
    wide = widened_item(w, d, s, item);
    if (wide != item) {
      const auto f = static_cast<int64_t>(wide / item);
      const int last = w.rank - 1;
      dims.size[last] /= f;
      for (int j = 0; j < last; ++j) {
        ds.s[j] /= f;
        ss.s[j] /= f;
      }
      count /= f;
    }
  }
  const CopyKernels k = copy_kernels(ctx, wide);
  uint64_t lo = mask.lo, hi = mask.hi;
  void* args[] = {&d, &s, &count, &dims, &ds, &ss, &lo, &hi};
  launch(fits_i32(count) ? k.copy_i32 : k.copy_i64, grid_of(ctx, count), dim3(kThreads), args, 0,
         ctx.stream, "td_copy");
}

Pattern scalar_pattern(ir::DType dtype, const ir::AttrValue& value) {
  bool is_int = true;
  int64_t i = 0;
  double d = 0;
  if (const auto* p = std::get_if<int64_t>(&value)) {
    i = *p;
  } else if (const auto* b = std::get_if<bool>(&value)) {
    i = *b ? 1 : 0;
  } else if (const auto* f = std::get_if<double>(&value)) {
    is_int = false;
    d = *f;
  } else {
    throw Error(ErrorCode::InvalidGraph, "expected a scalar attribute");
  }
  const double as_double = is_int ? static_cast<double>(i) : d;
  using ir::DType;
  switch (dtype) {
    case DType::Bool:
      return {is_int ? uint64_t{i != 0} : uint64_t{d != 0}, 0};
    case DType::Int8:
      return {to_int<int8_t>(is_int, i, d), 0};
    case DType::UInt8:
      return {to_int<uint8_t>(is_int, i, d), 0};
    case DType::Int16:
      return {to_int<int16_t>(is_int, i, d), 0};
    case DType::Int32:
      return {to_int<int32_t>(is_int, i, d), 0};
    case DType::Int64:
      return {to_int<int64_t>(is_int, i, d), 0};
    case DType::Float16:
      return {ir::Float16::from_float(round_to_odd_float(as_double)), 0};
    case DType::BFloat16:
      return {ir::BFloat16::from_float(round_to_odd_float(as_double)), 0};
    case DType::Float32: {
      const float f = is_int ? static_cast<float>(i) : static_cast<float>(d);
      return {std::bit_cast<uint32_t>(f), 0};
    }
    case DType::Float64:
      return {std::bit_cast<uint64_t>(as_double), 0};
    case DType::Complex64:
      return {std::bit_cast<uint32_t>(static_cast<float>(as_double)), 0};
    case DType::Complex128:
      return {std::bit_cast<uint64_t>(as_double), 0};
  }
  throw Error(ErrorCode::Internal, "unknown dtype");
}

void fill(CudaContext& ctx, void* dst, size_t itemsize, int64_t n, int64_t stride,
          const Pattern& pattern) {
  if (n <= 0) return;
  char* d = static_cast<char*>(dst);
  uint64_t lo = pattern.lo, hi = pattern.hi;
  void* args[] = {&d, &n, &stride, &lo, &hi};
  launch(copy_kernels(ctx, itemsize).fill, grid_of(ctx, n), dim3(kThreads), args, 0, ctx.stream,
         "td_fill");
}

void zero(CudaContext& ctx, void* dst, size_t bytes) {
  if (bytes == 0) return;
  check(cudaMemsetAsync(dst, 0, bytes, ctx.stream), "cudaMemsetAsync");
}

void* scratch(CudaContext& ctx, size_t bytes, std::vector<std::shared_ptr<engine::Buffer>>& keep) {
  keep.push_back(ctx.scratch(std::max<size_t>(bytes, 16)));
  return keep.back()->data();
}

std::vector<int64_t> broadcast_strides(std::span<const int64_t> from, std::span<const int64_t> to) {
  const std::vector<int64_t> own = ir::contiguous_strides(from);
  std::vector<int64_t> out(to.size(), 0);
  const size_t off = to.size() - from.size();
  for (size_t d = 0; d < from.size(); ++d) out[off + d] = from[d] == 1 ? 0 : own[d];
  return out;
}

engine::TensorValue dense(CudaContext& ctx, const engine::TensorValue& v, ir::DType dtype,
                          const ir::Shape* shape) {
  const ir::Shape& target = shape ? *shape : v.type.shape;
  ir::TensorType type{dtype, target};
  engine::TensorValue out =
      engine::TensorValue::contiguous(ctx.scratch(std::max<size_t>(type.nbytes(), 16)), type);
  StridedView src = view_of(v);
  if (shape != nullptr) {
    // Right-aligned broadcast of v's strides (size-1 dims read one element).
    std::vector<int64_t> strides(target.size(), 0);
    const size_t off = target.size() - v.type.shape.size();
    for (size_t d = 0; d < v.type.shape.size(); ++d) {
      strides[off + d] = v.type.shape[d] == 1 ? 0 : src.strides[d];
    }
    src.strides = std::move(strides);
  }
  copy(ctx, target, view_of(out), src, v.conj);
  return out;
}

void check_indices(CudaContext& ctx, std::span<const IndexCheck> checks) {
  std::vector<std::shared_ptr<engine::Buffer>> keep;
  auto* bad = static_cast<uint64_t*>(scratch(ctx, checks.size() * sizeof(uint64_t), keep));
  check(cudaMemsetAsync(bad, 0xff, checks.size() * sizeof(uint64_t), ctx.stream),
        "cudaMemsetAsync (index check)");
  bool any = false;
  for (size_t c = 0; c < checks.size(); ++c) {
    int64_t n = checks[c].index->type.numel();
    if (n == 0) continue;
    any = true;
    auto* p = static_cast<int64_t*>(checks[c].index->raw());
    int64_t size = checks[c].size;
    uint64_t* slot = bad + c;
    void* args[] = {&p, &n, &size, &slot};
    launch(kernel(ctx, index_kernel_source(), "td_check_index"), grid_of(ctx, n), dim3(kThreads),
           args, 0, ctx.stream, "td_check_index");
  }
  if (!any) return;
  std::vector<uint64_t> first(checks.size());
  check(cudaMemcpyAsync(first.data(), bad, first.size() * sizeof(uint64_t), cudaMemcpyDeviceToHost,
                        ctx.stream),
        "cudaMemcpyAsync (index check)");
  check(cudaStreamSynchronize(ctx.stream), "cudaStreamSynchronize (index check)");
  for (size_t c = 0; c < checks.size(); ++c) {
    if (first[c] == std::numeric_limits<uint64_t>::max()) continue;
    int64_t value = 0;
    check(cudaMemcpyAsync(&value, static_cast<int64_t*>(checks[c].index->raw()) + first[c],
                          sizeof value, cudaMemcpyDeviceToHost, ctx.stream),
          "cudaMemcpyAsync (index check)");
    check(cudaStreamSynchronize(ctx.stream), "cudaStreamSynchronize (index check)");
    throw Error(ErrorCode::Shape, "index " + std::to_string(value) + " is out of bounds for axis " +
                                      std::to_string(checks[c].axis) + " with size " +
                                      std::to_string(checks[c].size));
  }
}

}  // namespace tensord::cuda::movement
