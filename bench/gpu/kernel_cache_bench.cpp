#include "bench/gpu/kernel_cache_bench.h"

#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <thread>

#if TENSORD_WITH_CUDA
#include <cuda_runtime_api.h>

#include "engine/backends/cuda/cuda_kernel_cache.h"
#include "engine/backends/cuda/cuda_ops.h"
#include "engine/backends/cuda/loop_ir_batch.h"
#include "engine/backends/cuda/loop_ir_launch.h"
#include "engine/codegen/emit_cuda.h"
#include "engine/exec/tensor_value.h"
#include "engine/ir/dtype.h"
#endif

namespace tensord::bench {

std::vector<std::string> split_options(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string o; in >> o;) out.push_back(o);
  return out;
}

#if TENSORD_WITH_CUDA
namespace {

namespace fs = std::filesystem;

double thread_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

double process_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

double since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Removes the directory it made (not one the caller named).
struct ScratchDir {
  std::string path;
  bool owned = false;
  explicit ScratchDir(const std::string& given) {
    if (!given.empty()) {
      path = given;
      return;
    }
    std::string pattern = (fs::temp_directory_path() / "tensord-kcbench-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path = pattern;
    owned = true;
  }
  ~ScratchDir() {
    std::error_code ec;
    if (owned) fs::remove_all(path, ec);
  }
};

// The loop-IR family's kernel for `op` over vectors of 2^20 elements of `dtype` (no memory
// behind the operands: the family reads types and strides only).
codegen::LoopKernel kernel_of(ir::Op op, int arity, ir::DType dtype) {
  ir::Node node;
  node.op = op;
  auto value = [dtype] {
    engine::TensorValue v;
    v.buffer = std::make_shared<engine::Buffer>(nullptr, 0);
    v.type = {dtype, {int64_t{1} << 20}};
    v.strides = {1};
    return v;
  };
  std::vector<engine::TensorValue> in, out{value()};
  for (int i = 0; i < arity; ++i) in.push_back(value());
  node.outputs = {out[0].type};
  const std::vector<codegen::LoopKernel> kernels = cuda::loop_ir_kernels(node, in, out, 132);
  if (kernels.size() != 1) {
    throw std::runtime_error("expected one loop-IR kernel for " + std::string(ir::name(op)));
  }
  return kernels[0];
}

// The first twelve make the mixed plan (and the single units); a plan of one dtype takes all.
constexpr std::pair<ir::Op, int> kOps[] = {
    {ir::Op::neg, 1},   {ir::Op::exp, 1},  {ir::Op::add, 2},     {ir::Op::mul, 2},
    {ir::Op::tanh, 1},  {ir::Op::sqrt, 1}, {ir::Op::log, 1},     {ir::Op::sigmoid, 1},
    {ir::Op::sin, 1},   {ir::Op::div, 2},  {ir::Op::maximum, 2}, {ir::Op::erf, 1},
    {ir::Op::abs, 1},   {ir::Op::cos, 1},  {ir::Op::sub, 2},     {ir::Op::minimum, 2},
    {ir::Op::rsqrt, 1}, {ir::Op::relu, 1}, {ir::Op::floor, 1},   {ir::Op::expm1, 1},
    {ir::Op::log1p, 1}, {ir::Op::tan, 1},  {ir::Op::pow, 2},     {ir::Op::exp2, 1}};
constexpr size_t kMixedOps = 12;
constexpr ir::DType kDTypes[] = {ir::DType::Float32, ir::DType::Float16, ir::DType::BFloat16,
                                 ir::DType::Float64};

// "" float32 (the single units) or the mixed plan; else one of kDTypes by name.
std::optional<ir::DType> dtype_option(const std::string& name) {
  if (name.empty()) return std::nullopt;
  const std::optional<ir::DType> t = ir::dtype_from_name(name);
  if (!t || std::find(std::begin(kDTypes), std::end(kDTypes), *t) == std::end(kDTypes)) {
    throw std::runtime_error("--dtype must be float32, float16, bfloat16 or float64");
  }
  return t;
}

// The plan's kernels: the twelve ops over float32, then float16, bfloat16, float64; with a
// dtype, the 24 ops over it.
std::vector<codegen::LoopKernel> plan_kernels(int n, const std::string& dtype) {
  const std::optional<ir::DType> only = dtype_option(dtype);
  if (n < 1 || n > max_plan_kernels(dtype)) {
    throw std::runtime_error("--plan-kernels must be 1 to " +
                             std::to_string(max_plan_kernels(dtype)));
  }
  std::vector<codegen::LoopKernel> out;
  for (size_t i = 0; i < static_cast<size_t>(n); ++i) {
    const auto& [op, arity] = kOps[only ? i : i % kMixedOps];
    out.push_back(kernel_of(op, arity, only ? *only : kDTypes[i / kMixedOps]));
  }
  return out;
}

// --dump-sources: each kernel's own unit and the batch's programs, as compile_loop_kernels
// cuts them (its BatchOptions), so that NVRTC's phases can be timed on the same texts.
void dump_sources(const std::string& dir, const std::vector<codegen::LoopKernel>& plan,
                  const cuda::BatchOptions& batch) {
  fs::create_directories(dir);
  const codegen::CudaEmitter emitter;
  std::vector<codegen::EmittedKernel> emitted;
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream out(dir + "/" + name);
    out << text;
    if (!out) throw std::runtime_error("cannot write " + dir + "/" + name);
  };
  for (const codegen::LoopKernel& k : plan) {
    emitted.push_back(emitter.emit(k));
    write("unit-" + std::to_string(emitted.size() - 1) + ".cu", emitter.unit({&emitted.back(), 1}));
  }
  size_t at = 0, program = 0;
  for (size_t size : cuda::batch_sizes(emitted.size(), batch)) {
    write("program-" + std::to_string(program++) + ".cu",
          emitter.unit(std::span<const codegen::EmittedKernel>(emitted).subspan(at, size)));
    at += size;
  }
}

cuda::CudaKernelCacheOptions cache_options(const KernelCacheBenchOptions& o,
                                           const std::string& dir) {
  cuda::CudaKernelCacheOptions c;
  c.dir = dir;
  c.arch = o.arch;
  if (!o.use_default_options) c.options = o.nvrtc_options;
  return c;
}

cuda::BatchOptions batching(const KernelCacheBenchOptions& o) {
  return cuda::BatchOptions{.threads = o.plan_threads,
                            .min_batch = static_cast<size_t>(o.plan_min_batch),
                            .max_batch = static_cast<size_t>(o.plan_max_batch)};
}

std::vector<std::string> entry_names(const std::string& source) {
  // loop_unit's names are the unit's only extern "C" kernels; recompute them from the text.
  std::vector<std::string> names;
  const std::string mark = "extern \"C\" __global__ void ";
  for (size_t at = source.find(mark); at != std::string::npos; at = source.find(mark, at + 1)) {
    size_t start = at + mark.size();
    // The emitter writes `__launch_bounds__(N) name(` (launch_tuning.cpp).
    const std::string bounds = "__launch_bounds__(";
    if (source.compare(start, bounds.size(), bounds) == 0) {
      start = source.find_first_not_of(' ', source.find(')', start) + 1);
    }
    names.push_back(source.substr(start, source.find('(', start) - start));
  }
  return names;
}

}  // namespace

bool have_nvrtc() {
  return true;
}

int max_plan_kernels(const std::string& dtype) {
  return static_cast<int>(dtype.empty() ? kMixedOps * std::size(kDTypes) : std::size(kOps));
}

std::vector<std::string> fresh_elementwise_units(int n, const std::string& salt,
                                                 const std::string& dtype) {
  const ir::DType t = dtype_option(dtype).value_or(ir::DType::Float32);
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) {
    const auto& [op, arity] = kOps[static_cast<size_t>(i) % kMixedOps];
    out.push_back(cuda::loop_unit(kernel_of(op, arity, t)).source +
                  "// tensord-bench-gpu kernel cache figure: " + salt + " " + std::to_string(i) +
                  "\n");
  }
  return out;
}

KernelCacheFigures measure_kernel_cache(const KernelCacheBenchOptions& o) {
  if (o.kernels < 1) throw std::runtime_error("--kernels must be at least 1");
  KernelCacheFigures f;
  // Unique per run, so that a named --cache-dir used before holds none of them.
  const std::string salt =
      std::to_string(getpid()) + "-" +
      std::to_string(std::chrono::steady_clock::now().time_since_epoch().count());
  ScratchDir root(o.dir);
  const std::string compile_dir = root.path + "/compile-only", load_dir = root.path + "/load";

  // The process's first compile loads NVRTC's builtins: a once-per-daemon cost, kept apart.
  cuda::CudaKernelCache compiler(cache_options(o, compile_dir));
  f.identity = compiler.identity();
  const std::vector<std::string> warm = fresh_elementwise_units(1, salt + " warm-up", o.dtype);
  auto start = std::chrono::steady_clock::now();
  compiler.precompile(warm[0]);
  f.first_compile_s = since(start);

  const std::vector<std::string> units =
      fresh_elementwise_units(o.kernels, salt + " compile", o.dtype);
  for (const std::string& u : units) {
    f.source_bytes += u.size();
    const double cpu = thread_cpu_seconds();
    start = std::chrono::steady_clock::now();
    if (!compiler.precompile(u)) throw std::runtime_error("a fresh unit was found in the cache");
    f.compile_only_s.push_back(since(start));
    f.compile_only_cpu_s.push_back(thread_cpu_seconds() - cpu);
  }
  f.source_bytes /= units.size();

  // The plan-sized batch, each repeat into a directory of its own (so that none holds them).
  const std::vector<codegen::LoopKernel> plan = plan_kernels(o.plan_kernels, o.dtype);
  if (!o.dump_dir.empty()) dump_sources(o.dump_dir, plan, batching(o));
  const double n = static_cast<double>(plan.size());
  for (int r = 0; r < o.plan_repeats; ++r) {
    cuda::CudaKernelCache batch(
        cache_options(o, root.path + "/plan-only-" + salt + "-" + std::to_string(r)));
    const double cpu = process_cpu_seconds();
    start = std::chrono::steady_clock::now();
    const cuda::BatchReport report = cuda::compile_loop_kernels(batch, plan, batching(o));
    f.plan_compile_s.push_back(since(start) / n);
    f.plan_compile_cpu_s.push_back((process_cpu_seconds() - cpu) / n);
    if (!report.errors.empty()) throw std::runtime_error(report.errors.front());
    if (report.compiled != plan.size()) throw std::runtime_error("the plan's kernels were held");
    f.plan_programs = report.programs;
  }
  f.plan_threads = o.plan_threads > 0
                       ? o.plan_threads
                       : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (!o.device) return f;

  auto ok = [](cudaError_t e, const char* what) {
    if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorName(e));
  };
  ok(cudaSetDevice(0), "cudaSetDevice");
  ok(cudaFree(nullptr), "cudaFree(0) (the context)");  // the context is not the cache's cost
  const std::vector<std::string> loads =
      fresh_elementwise_units(o.kernels, salt + " load", o.dtype);
  {
    cuda::CudaKernelCache cold(cache_options(o, load_dir));
    cold.load(warm[0], entry_names(warm[0]));  // the first library load of the process
    for (const std::string& u : loads) {
      const std::vector<std::string> names = entry_names(u);
      start = std::chrono::steady_clock::now();
      cold.load(u, names);
      f.cold_load_s.push_back(since(start));
    }
    if (cold.stats().compiles != loads.size() + 1) {
      throw std::runtime_error("the cold loads did not all compile");
    }
  }
  // The plan's batch as CudaBackend::prepare compiles it, then each kernel loaded by its unit.
  for (int r = 0; r < o.plan_repeats; ++r) {
    cuda::CudaKernelCache batch(
        cache_options(o, root.path + "/plan-load-" + salt + "-" + std::to_string(r)));
    start = std::chrono::steady_clock::now();
    cuda::compile_loop_kernels(batch, plan, batching(o));
    for (const codegen::LoopKernel& k : plan) {
      const cuda::LoopUnit unit = cuda::loop_unit(k);
      batch.load(unit.source, unit.names);
    }
    f.plan_load_s.push_back(since(start) / n);
    if (batch.stats().misses != plan.size() || batch.stats().disk_hits != 0) {
      throw std::runtime_error("the plan's loads did not all come from its batch");
    }
  }
  // A restarted daemon: a new cache object on the directory the CUBINs are in.
  cuda::CudaKernelCache warm_cache(cache_options(o, load_dir));
  warm_cache.load(warm[0], entry_names(warm[0]));
  for (const std::string& u : loads) {
    const std::vector<std::string> names = entry_names(u);
    start = std::chrono::steady_clock::now();
    warm_cache.load(u, names);
    f.disk_hit_s.push_back(since(start));
  }
  if (warm_cache.stats().compiles != 0 || warm_cache.stats().disk_hits != loads.size() + 1) {
    throw std::runtime_error("the warm loads did not all come from disk");
  }
  return f;
}

#else

bool have_nvrtc() {
  return false;
}

std::vector<std::string> fresh_elementwise_units(int, const std::string&, const std::string&) {
  throw std::runtime_error("this build has no CUDA backend");
}

int max_plan_kernels(const std::string& dtype) {
  return dtype.empty() ? 48 : 24;
}

KernelCacheFigures measure_kernel_cache(const KernelCacheBenchOptions&) {
  throw std::runtime_error("this build has no CUDA backend (no NVRTC)");
}

#endif

}  // namespace tensord::bench
