#include "engine/backends/cuda/sort_common.h"

#include <algorithm>

#include "engine/backends/cuda/sort_sources.h"
#include "engine/codegen/cuda_half_prelude.h"
#include "engine/ir/error.h"

namespace tensord::cuda {

void LineGroup::push_inner(int64_t n, int64_t s) {
  if (n == 1) return;
  // The previous (outer) dim continues this one: one dim of n * size with this stride.
  if (rank > 0 && size[rank - 1] != 0 && n != 0 && stride[rank - 1] == s * n) {
    size[rank - 1] *= n;
    stride[rank - 1] = s;
    return;
  }
  size[rank] = n;
  stride[rank] = s;
  ++rank;
}

int64_t LineGroup::count() const {
  int64_t c = 1;
  for (int d = 0; d < rank; ++d) c *= size[d];
  return c;
}

LineGeo lines_along(const engine::TensorValue& x, int64_t axis) {
  LineGeo g;
  g.offset = x.offset;
  const auto rank = static_cast<int64_t>(x.type.shape.size());
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t n = x.type.shape[d];
    if (d == axis) {
      g.line.push_inner(n, x.strides[d]);
      g.n = n;
    } else {
      g.batch.push_inner(n, x.strides[d]);
      g.lines *= n;
      if (d > axis) g.inner *= n;
    }
  }
  g.m = g.n;
  return g;
}

LineGeo lines_over(const engine::TensorValue& x, const bool* reduced) {
  LineGeo g;
  g.offset = x.offset;
  g.n = 1;
  const auto rank = static_cast<int64_t>(x.type.shape.size());
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t n = x.type.shape[d];
    if (reduced[d]) {
      g.line.push_inner(n, x.strides[d]);
      g.n *= n;
    } else {
      g.batch.push_inner(n, x.strides[d]);
      g.lines *= n;
    }
  }
  g.m = 1;
  return g;
}

namespace {
LaunchHook& launch_hook() {
  static LaunchHook hook;
  return hook;
}
}  // namespace

void set_launch_hook_for_tests(LaunchHook hook) {
  launch_hook() = std::move(hook);
}

void launch_named(CudaContext& ctx, const std::string& source, const char* name, dim3 grid,
                  dim3 block, void** args) {
  if (const LaunchHook& hook = launch_hook()) return hook(source, name, grid, block, args);
  launch(ctx.kernels.kernel(source, name), grid, block, args, 0, ctx.stream, name);
}

void throw_unsupported_on_cuda(ir::Op op, ir::DType dtype) {
  throw Error(ErrorCode::Unsupported, "the CUDA backend has no " + std::string(ir::name(op)) +
                                          " kernel for " + std::string(ir::name(dtype)));
}

dim3 blocks_for(int64_t units, int64_t cap) {
  const int64_t b = units < 1 ? 1 : units < cap ? units : cap;
  return dim3(static_cast<unsigned>(b < 1 ? 1 : b));
}

int64_t next_pow2(int64_t n) {
  int64_t p = 1;
  while (p < n) p <<= 1;
  return p;
}

void sort_pairs(CudaContext& ctx, void* keys, void* idx, int64_t total, int64_t P) {
  constexpr int kThreads = 256;
  constexpr int64_t kChunk = 2048;     // SORT_CHUNK of the network: pairs sorted in shared memory
  constexpr int kChunkThreads = 1024;  // SORT_THREADS
  const std::string& net = sort_network_source();
  const int64_t cap = int64_t{ctx.sm_count} * 8;
  int64_t kmax = std::min(P, kChunk);
  void* chunk_args[] = {&keys, &idx, &total, &P, &kmax};
  launch_named(ctx, net, "sort_chunks", blocks_for((total + kChunk - 1) / kChunk, cap),
               dim3(kChunkThreads), chunk_args);
  for (int64_t k = 2 * kChunk; k <= P; k <<= 1) {
    for (int64_t j = k / 2; j >= kChunk; j >>= 1) {
      void* step_args[] = {&keys, &idx, &total, &P, &k, &j};
      launch_named(ctx, net, "sort_step", grid_for(ctx, total / 2, kThreads), dim3(kThreads),
                   step_args);
    }
    void* merge_args[] = {&keys, &idx, &total, &P, &k};
    launch_named(ctx, net, "sort_merge", blocks_for(total / kChunk, cap), dim3(kChunkThreads),
                 merge_args);
  }
}

const std::string& sort_prelude() {
  static const std::string text = std::string(codegen::cuda_half_prelude()) + R"(
typedef long long i64;
typedef unsigned long long u64;
typedef unsigned int u32;
typedef unsigned short u16;
struct f16 { u16 bits; };
struct bf16 { u16 bits; };
struct c64 { float re, im; };
struct c128 { double re, im; };
struct Group { int rank; int pad; i64 size[16]; i64 stride[16]; };
struct LineGeo { i64 offset, lines, n, inner, m; Group batch, line; };
static_assert(sizeof(Group) == 264 && sizeof(LineGeo) == 568, "host and device layouts differ");
#define I64_MAX 0x7fffffffffffffffLL

__device__ __forceinline__ i64 group_offset(const Group& g, i64 i) {
  i64 off = 0;
  for (int d = g.rank - 1; d >= 0; --d) {
    const i64 s = g.size[d];
    off += (i % s) * g.stride[d];
    i /= s;
  }
  return off;
}
__device__ __forceinline__ i64 line_base(const LineGeo& g, i64 line) {
  return g.offset + group_offset(g.batch, line);
}
__device__ __forceinline__ i64 in_at(const LineGeo& g, i64 line, i64 k) {
  return line_base(g, line) + group_offset(g.line, k);
}
__device__ __forceinline__ i64 out_at(const LineGeo& g, i64 line, i64 k) {
  return (line / g.inner) * g.m * g.inner + k * g.inner + line % g.inner;
}
__device__ __forceinline__ i64 global_thread() {
  return (i64)blockIdx.x * blockDim.x + threadIdx.x;
}
__device__ __forceinline__ i64 global_threads() {
  return (i64)gridDim.x * blockDim.x;
}

// Entry points: extern "C" kernels for NVRTC. Compiled as host C++ (the CPU emulation test,
// tests/unit/cuda/sort_emulation_test.cpp) they are plain functions, one set per namespace.
#ifdef __CUDACC_RTC__
#define KERNEL extern "C" __global__
#else
#define KERNEL __global__
#endif

__device__ __forceinline__ double d_inf() { return __longlong_as_double(0x7ff0000000000000LL); }

// Sort keys: unsigned integers whose order is the value order, NaN above +inf (all NaNs one
// key), -0.0 the key of 0.0.
__device__ __forceinline__ u64 key_f32(float f) {
  u32 b = __float_as_uint(f);
  if (f != f) b = 0x7fc00000u;
  else if (f == 0.0f) b = 0u;
  return (b & 0x80000000u) ? (u64)(~b) : (u64)(b | 0x80000000u);
}
__device__ __forceinline__ u64 key_f64(double f) {
  u64 b = (u64)__double_as_longlong(f);
  if (f != f) b = 0x7ff8000000000000ull;
  else if (f == 0.0) b = 0ull;
  return (b & 0x8000000000000000ull) ? ~b : (b | 0x8000000000000000ull);
}
__device__ __forceinline__ u64 key_i64(i64 v) { return (u64)v ^ 0x8000000000000000ull; }
)";
  return text;
}

std::string dtype_prelude(ir::DType t) {
  using ir::DType;
  auto integer = [](const char* storage) {
    return std::string("#define IS_FLOAT 0\n#define IS_COMPLEX 0\ntypedef ") + storage +
           " In;\ntypedef i64 Cmp;\n"
           "__device__ __forceinline__ Cmp to_cmp(In v) { return (i64)v; }\n"
           "__device__ __forceinline__ In from_cmp(Cmp c) { return (In)c; }\n"
           "__device__ __forceinline__ u64 key_of(In v) { return key_i64((i64)v); }\n"
           "__device__ __forceinline__ double to_f64(In v) { return (double)(i64)v; }\n";
  };
  auto floating = [](const char* storage, const char* cmp, const char* load, const char* store,
                     const char* key) {
    return std::string("#define IS_FLOAT 1\n#define IS_COMPLEX 0\ntypedef ") + storage +
           " In;\ntypedef " + cmp + " Cmp;\n" +
           "__device__ __forceinline__ Cmp to_cmp(In v) { return " + load + "; }\n" +
           "__device__ __forceinline__ In from_cmp(Cmp c) { In r; " + store + "; return r; }\n" +
           "__device__ __forceinline__ u64 key_of(In v) { return " + key + "(to_cmp(v)); }\n" +
           "__device__ __forceinline__ u64 nan_key() { return " + key +
           "((Cmp)__longlong_as_double(0x7ff8000000000000LL)); }\n" +
           "__device__ __forceinline__ double to_f64(In v) { return (double)to_cmp(v); }\n" +
           "__device__ __forceinline__ In from_f64(double d) { return from_cmp((Cmp)d); }\n";
  };
  auto complex = [](const char* storage, const char* part) {
    return std::string("#define IS_FLOAT 0\n#define IS_COMPLEX 1\ntypedef ") + storage +
           " In;\ntypedef " + part + " Part;\n";
  };
  switch (t) {
    case DType::Bool:
      return integer("unsigned char");
    case DType::Int8:
      return integer("signed char");
    case DType::UInt8:
      return integer("unsigned char");
    case DType::Int16:
      return integer("short");
    case DType::Int32:
      return integer("int");
    case DType::Int64:
      return integer("long long");
    case DType::Float16:
      return floating("f16", "float", "td_h2f(v.bits)", "r.bits = td_f2h(c)", "key_f32");
    case DType::BFloat16:
      return floating("bf16", "float", "td_b2f(v.bits)", "r.bits = td_f2b(c)", "key_f32");
    case DType::Float32:
      return floating("float", "float", "v", "r = c", "key_f32");
    case DType::Float64:
      return floating("double", "double", "v", "r = c", "key_f64");
    case DType::Complex64:
      return complex("c64", "float");
    case DType::Complex128:
      return complex("c128", "double");
  }
  throw Error(ErrorCode::Internal, "invalid dtype " + std::to_string(static_cast<int>(t)));
}

}  // namespace tensord::cuda
