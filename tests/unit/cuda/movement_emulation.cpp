// A host stand-in for the CUDA runtime under the creation, movement and index families, so that
// their host code and their kernels run on a machine without a GPU: every CUDA C source is
// compiled as C++ by the host compiler (with a shim for CUDA's built-ins) into a shared library,
// kernels are called through generated thunks, and device memory is host memory. The loop-IR
// emitter's units (the conformance binary sends it complex nodes, or every node it takes) run
// the same way; units compiled together (CudaKernelCache::compile_together, the conformance
// table's batches) share one library. A launch runs up to two of its blocks, one after the
// other, each one's threads as fibers on this thread, a round of them for each __syncthreads
// (block_fibers.h); a warp shuffle is two such rounds. Fibers switch only there, so an atomic
// is a plain operation. This checks the kernels' logic and arithmetic over real block and
// warp indices, not CUDA itself: tensord_gpu_cuda_movement and the conformance table do that
// on a device.
#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <unistd.h>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "engine/backends/cuda/cuda_check.h"
#include "engine/backends/cuda/cuda_kernel_cache.h"
#include "engine/backends/cuda/fft_strided_copy.h"
#include "engine/backends/cuda/int_matmul.h"
#include "engine/backends/cuda/movement_sources.h"
#include "engine/backends/cuda/solver_kernels.h"
#include "engine/backends/cuda/sort_sources.h"
#include "engine/ir/error.h"
#include "tests/unit/cuda/block_fibers.h"

namespace tensord::cuda {
namespace {

// What every emulated unit starts with, after its own built-ins: the launch's geometry, the
// block's barrier (BlockFibers::sync, behind a plain function pointer), and the calls the
// launch makes into the library.
constexpr const char* kLaunchShim = R"(// the emulated launch
#include <cstddef>
#include <cstring>
#include <type_traits>
#include <utility>
#define __global__
#define __shared__ static
#define __launch_bounds__(n)
struct td_dim3 { unsigned x, y, z; };
static td_dim3 threadIdx = {0, 0, 0}, blockIdx = {0, 0, 0}, blockDim = {1, 1, 1}, gridDim = {1, 1, 1};
typedef void (*td_sync_fn)(void*);
static td_sync_fn td_sync = nullptr;
static void* td_sync_arg = nullptr;
static inline void __syncthreads() { td_sync(td_sync_arg); }
static unsigned td_emu_lane_shuffles[1024];  // each thread's shuffles so far (loop-IR units)
extern "C" void td_emu_launch(unsigned bx, unsigned by, td_sync_fn sync, void* arg) {
  blockDim = {bx, by, 1}; td_sync = sync; td_sync_arg = arg;
}
extern "C" void td_emu_block(unsigned b, unsigned blocks) {
  blockIdx = {b, 0, 0}; gridDim = {blocks, 1, 1};
  memset(td_emu_lane_shuffles, 0, sizeof td_emu_lane_shuffles);
}
extern "C" void td_emu_thread(unsigned tx, unsigned ty) { threadIdx = {tx, ty, 0}; }
template <typename... A, std::size_t... I>
static void td_call(void (*f)(A...), void** a, std::index_sequence<I...>) {
  f(*static_cast<std::remove_cv_t<std::remove_reference_t<A>>*>(a[I])...);
}
template <typename... A> static void td_invoke(void (*f)(A...), void** a) {
  td_call(f, a, std::index_sequence_for<A...>{});
}
)";

// The families' CUDA built-ins, before kLaunchShim. Atomics are plain operations: fibers
// switch only at barriers.
constexpr const char* kFamilyShim = R"(// CUDA built-ins for host C++
#include <math.h>
#include <string.h>
#define __device__
#define __forceinline__ inline
static inline float __uint_as_float(unsigned u) { float f; memcpy(&f, &u, 4); return f; }
static inline unsigned __float_as_uint(float f) { unsigned u; memcpy(&u, &f, 4); return u; }
static inline float __int_as_float(int i) { float f; memcpy(&f, &i, 4); return f; }
static inline double __longlong_as_double(long long u) { double f; memcpy(&f, &u, 8); return f; }
static inline long long __double_as_longlong(double f) { long long u; memcpy(&u, &f, 8); return u; }
static inline float __double2float_rn(double d) { return (float)d; }
static inline float __fadd_rn(float a, float b) { return a + b; }
static inline double __dadd_rn(double a, double b) { return a + b; }
static inline double __dsub_rn(double a, double b) { return a - b; }
static inline double __dmul_rn(double a, double b) { return a * b; }
static inline double __ddiv_rn(double a, double b) { return a / b; }
static inline double __dsqrt_rn(double a) { return sqrt(a); }
static inline double __fma_rn(double a, double b, double c) { return fma(a, b, c); }
template <typename T> static inline T td_emu_min(T* p, T v) { T o = *p; if (v < o) *p = v; return o; }
template <typename T> static inline T td_emu_max(T* p, T v) { T o = *p; if (v > o) *p = v; return o; }
static inline unsigned long long atomicMin(unsigned long long* p, unsigned long long v) { return td_emu_min(p, v); }
static inline long long atomicMin(long long* p, long long v) { return td_emu_min(p, v); }
static inline long long atomicMax(long long* p, long long v) { return td_emu_max(p, v); }
static inline double atomicAdd(double* p, double v) { double o = *p; *p = o + v; return o; }
static inline unsigned long long atomicAdd(unsigned long long* p, unsigned long long v) {
  unsigned long long o = *p; *p = o + v; return o;
}
static inline unsigned long long atomicCAS(unsigned long long* p, unsigned long long c,
                                           unsigned long long v) {
  unsigned long long o = *p; if (o == c) *p = v; return o;
}
)";

// The loop-IR emitter's units (engine/codegen/emit_cuda*.cpp) take the formula prelude's host
// stand-ins (formulas_host_shim.h) before kLaunchShim, and after it warp shuffles and the
// block's dynamic shared memory (a row cache: a buffer of the size the launch asked for). A
// shuffle is two barriers of the block: every thread leaves its value in its lane's slot, then
// reads its partner's; the partner must have taken part in as many shuffles, or the kernel's
// masks left it out and the emulation stops there, where a GPU would read garbage.
constexpr const char* kLoopBuiltins = "#include \"tests/unit/cuda/formulas_host_shim.h\"\n";
constexpr const char* kLoopShim = R"(// warp shuffles and dynamic shared memory
#include <cstdio>
#include <cstdlib>
static unsigned char td_emu_lane_value[1024][8];
template <class T> static inline T __shfl_xor_sync(unsigned mask, T x, int o) {
  static_assert(sizeof(T) <= sizeof td_emu_lane_value[0], "a shuffle of more than 8 bytes");
  const unsigned t = threadIdx.x, p = t ^ (unsigned)o;
  if (p >= blockDim.x || !(mask >> (t & 31u) & 1u) || !(mask >> (p & 31u) & 1u)) {
    fprintf(stderr, "emulation: thread %u shuffles with %u outside mask %x\n", t, p, mask);
    abort();
  }
  memcpy(td_emu_lane_value[t], &x, sizeof x);
  const unsigned count = ++td_emu_lane_shuffles[t];
  __syncthreads();
  if (td_emu_lane_shuffles[p] != count) {
    fprintf(stderr, "emulation: thread %u's shuffle %u found thread %u at its shuffle %u\n", t,
            count, p, td_emu_lane_shuffles[p]);
    abort();
  }
  T y;
  memcpy(&y, td_emu_lane_value[p], sizeof y);
  __syncthreads();
  return y;
}
alignas(16) static unsigned char td_emu_dyn[1 << 16];
static size_t td_emu_dyn_bytes = 0;
extern "C" void td_emu_shared(size_t bytes) { td_emu_dyn_bytes = bytes <= sizeof td_emu_dyn ? bytes : 0; }
extern "C" const unsigned char* td_emu_shared_data() { return td_emu_dyn; }
)";

// `head` found in a loop-IR unit, or an error saying that the prelude changed under the
// emulation (whose kernels would then loop forever or touch shared memory that is not there).
size_t find_in_prelude(const std::string& text, const std::string& head) {
  const size_t at = text.find(head);
  if (at == std::string::npos) {
    throw Error(ErrorCode::Internal, "emulation: the loop-IR prelude has no `" + head + "`");
  }
  return at;
}

// A loop-IR unit with the dynamic shared memory functions (device code: an extern __shared__
// array and a PTX register) answering with td_emu_dyn.
std::string loop_unit_for_host(std::string text) {
  const size_t begin =
      find_in_prelude(text, "static __device__ __forceinline__ unsigned char* td_dyn_smem() {");
  const size_t end = find_in_prelude(
      text,
      "static __device__ __forceinline__ int td_group(td_i64 n, td_i64 rows, bool strided) {");
  text.replace(begin, end - begin,
               "static unsigned char* td_dyn_smem() { return td_emu_dyn; }\n"
               "static unsigned td_dyn_smem_bytes() { return (unsigned)td_emu_dyn_bytes; }\n");
  return text;
}

struct EmuLibrary {
  void* handle = nullptr;
  void (*launch)(unsigned, unsigned, void (*sync)(void*), void* arg) = nullptr;
  void (*thread)(unsigned, unsigned) = nullptr;
  void (*block)(unsigned, unsigned) = nullptr;  // which block runs, of how many
  void (*shared)(size_t) = nullptr;             // loop-IR units: the launch's dynamic shared memory
  const unsigned char* (*shared_data)() = nullptr;
};

std::mutex g_mutex;
std::map<std::string, EmuLibrary> g_libraries;        // by source text
std::map<void*, const EmuLibrary*> g_kernel_library;  // thunk -> its library
const KernelSource* find_source(const std::string& text) {
  static const std::vector<KernelSource> all = [] {
    std::vector<KernelSource> v;
    for (const auto& list :
         {creation_kernel_sources(), movement_kernel_sources(), index_kernel_sources(),
          dynamic_kernel_sources(), int_matmul_kernel_sources()}) {
      v.insert(v.end(), list.begin(), list.end());
    }
    // The sort family's sources that unique uses: the network and the per-dtype keys.
    v.push_back({"sort_network", &sort_network_source(), sort_network_kernel_names()});
    for (int t = 0; t <= static_cast<int>(ir::DType::Float64); ++t) {
      const auto dtype = static_cast<ir::DType>(t);
      v.push_back(
          {"sort_" + std::string(ir::name(dtype)), &sort_source(dtype), sort_kernel_names(dtype)});
    }
    // The solver family's (tests/unit/cuda/solver_emulation.cpp stands in for cuSOLVER): its
    // kernels and the strided copy it lays matrices out with.
    v.push_back({"solver_kernels", &solver_kernels_source(), solver_kernel_names()});
    std::vector<std::string> copies;
    for (int s = 0; s <= static_cast<int>(ir::DType::Complex128); ++s) {
      for (int d = 0; d <= static_cast<int>(ir::DType::Complex128); ++d) {
        const auto src = static_cast<ir::DType>(s), dst = static_cast<ir::DType>(d);
        if (strided_copy_supports(src, dst)) copies.push_back(strided_copy_kernel_name(src, dst));
      }
    }
    v.push_back({"strided_copy", &strided_copy_source(), copies});
    return v;
  }();
  for (const KernelSource& s : all) {
    if (*s.text == text) return &s;
  }
  return nullptr;
}

// The shared libraries go when the test ends.
struct ScratchDir {
  std::string path = "/tmp/tensord_emu_" + std::to_string(getpid());
  ScratchDir() {
    const std::string cmd = "mkdir -p " + path;
    if (std::system(cmd.c_str()) != 0) std::fprintf(stderr, "could not create %s\n", path.c_str());
  }
  ~ScratchDir() {
    const std::string cmd = "rm -rf " + path;
    if (std::system(cmd.c_str()) != 0) std::fprintf(stderr, "could not remove %s\n", path.c_str());
  }
};

// Compiles a family's source (`family`) or loop-IR units into a library with a thunk for each
// of `entries`, under the file name `name`. Takes no lock: batches compile side by side.
EmuLibrary compile_library(const std::string& name, const std::string& text, bool family,
                           std::span<const std::string> entries) {
  static ScratchDir scratch;
  const std::string stem = scratch.path + "/" + name;
  {
    std::ofstream f(stem + ".cpp");
    if (family) {
      f << kFamilyShim << kLaunchShim << text << "\n";
    } else {
      f << kLoopBuiltins << kLaunchShim << kLoopShim << loop_unit_for_host(text) << "\n";
    }
    for (const std::string& e : entries) {
      f << "extern \"C\" void " << e << "_thunk(void** a) { td_invoke(&" << e << ", a); }\n";
    }
  }
  const std::string cmd =
      std::string(TENSORD_EMU_CXX) + " -std=c++20 -O1 -ffp-contract=off -fno-fast-math -I" +
      TENSORD_EMU_SOURCE_DIR + " -shared -fPIC -w -o " + stem + ".so " + stem + ".cpp";
  if (std::system(cmd.c_str()) != 0) {
    throw Error(ErrorCode::Internal, "emulation: the host compiler rejected " + name);
  }
  EmuLibrary lib;
  lib.handle = dlopen((stem + ".so").c_str(), RTLD_NOW | RTLD_LOCAL);
  if (lib.handle == nullptr) throw Error(ErrorCode::Internal, dlerror());
  lib.launch = reinterpret_cast<void (*)(unsigned, unsigned, void (*)(void*), void*)>(
      dlsym(lib.handle, "td_emu_launch"));
  lib.thread = reinterpret_cast<void (*)(unsigned, unsigned)>(dlsym(lib.handle, "td_emu_thread"));
  lib.block = reinterpret_cast<void (*)(unsigned, unsigned)>(dlsym(lib.handle, "td_emu_block"));
  lib.shared = reinterpret_cast<void (*)(size_t)>(dlsym(lib.handle, "td_emu_shared"));
  lib.shared_data =
      reinterpret_cast<const unsigned char* (*)()>(dlsym(lib.handle, "td_emu_shared_data"));
  return lib;
}

// A family's source (known by its text) or a loop-IR unit (any other text: its kernels are
// `names`), compiled on first use. Under g_mutex.
const EmuLibrary& library(const std::string& text, std::span<const std::string> names) {
  auto it = g_libraries.find(text);
  if (it != g_libraries.end()) return it->second;
  const KernelSource* source = find_source(text);
  EmuLibrary lib = source != nullptr
                       ? compile_library(source->name, text, true, source->entries)
                       : compile_library("loop_" + names.front(), text, false,
                                         std::vector<std::string>(names.begin(), names.end()));
  return g_libraries.emplace(text, lib).first->second;
}

// The kernels a loop-IR unit defines (the emitter's heads: extern "C" __global__ void
// __launch_bounds__(N) td_<hash>(...)).
std::vector<std::string> loop_unit_kernels(const std::string& text) {
  const std::string head = "extern \"C\" __global__ void __launch_bounds__(";
  std::vector<std::string> names;
  for (size_t at = text.find(head); at != std::string::npos; at = text.find(head, at + 1)) {
    const size_t begin = text.find(") ", at + head.size()) + 2;
    names.push_back(text.substr(begin, text.find('(', begin) - begin));
  }
  if (names.empty()) throw Error(ErrorCode::Internal, "emulation: no kernel in a loop-IR unit");
  return names;
}

}  // namespace

struct CudaKernelCache::Library {};

CudaKernelCache::CudaKernelCache(CudaKernelCacheOptions options) : options_(std::move(options)) {}
CudaKernelCache::~CudaKernelCache() = default;

// As the real cache's: the members' kernels come from the combined unit's one library.
void CudaKernelCache::compile_together(const std::string& combined,
                                       std::span<const std::string> members) {
  static std::atomic<int> batches{0};
  const EmuLibrary lib = compile_library("batch_" + std::to_string(batches++), combined, false,
                                         loop_unit_kernels(combined));
  std::lock_guard lock(g_mutex);
  for (const std::string& m : members) g_libraries.emplace(m, lib);
}

bool CudaKernelCache::holds(const std::string& source) {
  std::lock_guard lock(g_mutex);
  return g_libraries.count(source) > 0;
}

std::vector<cudaKernel_t> CudaKernelCache::load(const std::string& source,
                                                std::span<const std::string> names) {
  std::lock_guard lock(g_mutex);
  const EmuLibrary& lib = library(source, names);
  std::vector<cudaKernel_t> out;
  for (const std::string& name : names) {
    void* f = dlsym(lib.handle, (name + "_thunk").c_str());
    if (f == nullptr) throw Error(ErrorCode::Internal, "emulation: no kernel " + name);
    g_kernel_library[f] = &lib;
    out.push_back(reinterpret_cast<cudaKernel_t>(f));
  }
  return out;
}

cudaKernel_t CudaKernelCache::kernel(const std::string& source, const std::string& name) {
  const std::string names[] = {name};
  return load(source, names).front();
}

// Every kernel strides over its work by the grid's size (in x), so fewer blocks than the
// launch asks for cover it all; two still make each block skip the other's share.
constexpr unsigned kBlocks = 2;

// Emulated launches run in order: a programmatic one is a plain one.
void launch_programmatic(cudaKernel_t kernel, dim3 grid, dim3 block, void** args,
                         size_t shared_bytes, cudaStream_t stream, const char* what) {
  launch(kernel, grid, block, args, shared_bytes, stream, what);
}

void launch(cudaKernel_t kernel, dim3 grid, dim3 block, void** args, size_t shared_bytes,
            cudaStream_t, const char*) {
  if (grid.x == 0 || grid.y == 0 || grid.z == 0) return;
  auto* f = reinterpret_cast<void (*)(void**)>(kernel);
  const EmuLibrary* lib = g_kernel_library.at(reinterpret_cast<void*>(kernel));
  if (lib->shared != nullptr) lib->shared(shared_bytes);
  thread_local test::BlockFibers fibers;
  const unsigned blocks = std::min(grid.x, kBlocks);
  lib->launch(block.x, block.y, &test::BlockFibers::sync, &fibers);
  for (unsigned b = 0; b < blocks; ++b) {
    lib->block(b, blocks);
    fibers.run(
        block.x, block.y, [&](unsigned x, unsigned y) { lib->thread(x, y); }, [&] { f(args); });
  }
}

namespace test {
const unsigned char* emulated_shared_memory(cudaKernel_t kernel) {
  const EmuLibrary* lib = g_kernel_library.at(reinterpret_cast<void*>(kernel));
  return lib->shared_data != nullptr ? lib->shared_data() : nullptr;
}
}  // namespace test

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) throw Error(ErrorCode::Internal, std::string(what) + " failed");
}

}  // namespace tensord::cuda

// Device memory is host memory here.
cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t n, cudaMemcpyKind, cudaStream_t) {
  if (n) std::memmove(dst, src, n);
  return cudaSuccess;
}
cudaError_t cudaMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch,
                              size_t width, size_t height, cudaMemcpyKind, cudaStream_t) {
  for (size_t r = 0; r < height; ++r) {
    std::memmove(static_cast<char*>(dst) + r * dpitch, static_cast<const char*>(src) + r * spitch,
                 width);
  }
  return cudaSuccess;
}
cudaError_t cudaMemsetAsync(void* dst, int value, size_t n, cudaStream_t) {
  std::memset(dst, value, n);
  return cudaSuccess;
}
cudaError_t cudaStreamSynchronize(cudaStream_t) {
  return cudaSuccess;
}

// Timing events (max-autotune's launch timing, loop_ir_launch.cpp): the host clock, since
// emulated launches finish before they return.
struct CUevent_st {
  std::chrono::steady_clock::time_point at;
};
cudaError_t cudaEventCreate(cudaEvent_t* event) {
  *event = new CUevent_st{};
  return cudaSuccess;
}
cudaError_t cudaEventDestroy(cudaEvent_t event) {
  delete event;
  return cudaSuccess;
}
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t) {
  event->at = std::chrono::steady_clock::now();
  return cudaSuccess;
}
cudaError_t cudaEventSynchronize(cudaEvent_t) {
  return cudaSuccess;
}
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  *ms = std::chrono::duration<float, std::milli>(end->at - start->at).count();
  return cudaSuccess;
}
