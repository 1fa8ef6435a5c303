#include "engine/backends/cuda/loop_ir_launch.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "engine/backends/cuda/cuda_check.h"
#include "engine/codegen/emit_cuda.h"
#include "engine/ir/error.h"

namespace tensord::cuda {
namespace {

// A LoopKernel as bytes: the memo's key (cheaper than emitting the source to hash it).
std::string key_of(const codegen::LoopKernel& k) {
  std::string s;
  auto put = [&](uint64_t v) { s.append(reinterpret_cast<const char*>(&v), sizeof v); };
  put(k.outer_rank);
  put(k.inner_rank);
  for (const auto* ops : {&k.inputs, &k.outputs}) {
    put(ops->size());
    for (const codegen::Operand& o : *ops) {
      put(static_cast<uint64_t>(o.dtype) | static_cast<uint64_t>(o.level) << 8 |
          static_cast<uint64_t>(o.access) << 16);
    }
  }
  for (const codegen::Instr& in : k.body) {
    put(static_cast<uint64_t>(in.kind) | static_cast<uint64_t>(in.op) << 8 |
        static_cast<uint64_t>(in.dtype) << 24 | static_cast<uint64_t>(in.level) << 32 |
        static_cast<uint64_t>(in.arg) << 40);
    put(in.args.size());
    for (uint32_t a : in.args) put(a);
    uint64_t bits = 0;
    std::memcpy(&bits, &in.value, sizeof bits);
    put(bits);
  }
  for (uint32_t r : k.results) put(r);
  return s;
}

// A pair of timing events (the backend's own events disable timing).
struct TimingEvents {
  cudaEvent_t start = nullptr, stop = nullptr;
  TimingEvents() {
    check(cudaEventCreate(&start), "cudaEventCreate (autotune)");
    if (cudaError_t e = cudaEventCreate(&stop); e != cudaSuccess) {
      cudaEventDestroy(start);
      check(e, "cudaEventCreate (autotune)");
    }
  }
  ~TimingEvents() {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
  }
  TimingEvents(const TimingEvents&) = delete;
  TimingEvents& operator=(const TimingEvents&) = delete;
};

class LoopKernels final : public FamilyState {
 public:
  std::unordered_map<std::string, LoopEntry> loaded;
};

}  // namespace

LoopUnit loop_unit(const codegen::LoopKernel& kernel) {
  const codegen::CudaEmitter emitter;
  const std::vector<codegen::EmittedKernel> entries = emitter.entry_points(kernel);
  return LoopUnit{emitter.unit(entries),
                  {entries[0].name},
                  {entries.size() > 1 ? entries[1].name : std::string()}};
}

LoopUnit fused_unit(std::span<const engine::FusedGroup> groups) {
  const codegen::CudaEmitter emitter;
  std::vector<codegen::EmittedKernel> kernels;
  LoopUnit unit;
  for (const engine::FusedGroup& g : groups) {
    std::vector<codegen::EmittedKernel> entries = emitter.entry_points(g.kernel);
    unit.names.push_back(entries[0].name);
    unit.row_registers.push_back(entries.size() > 1 ? entries[1].name : std::string());
    bool seen = false;
    for (const codegen::EmittedKernel& e : kernels) seen = seen || e.name == entries[0].name;
    if (seen) continue;
    for (codegen::EmittedKernel& e : entries) kernels.push_back(std::move(e));
  }
  std::sort(kernels.begin(), kernels.end(),
            [](const auto& a, const auto& b) { return a.name < b.name; });
  unit.source = emitter.unit(kernels);
  return unit;
}

std::vector<LoopEntry> load_unit(CudaKernelCache& kernels, const LoopUnit& unit) {
  std::vector<std::string> names = unit.names;
  for (const std::string& r : unit.row_registers) {
    if (!r.empty()) names.push_back(r);
  }
  const std::vector<cudaKernel_t> loaded = kernels.load(unit.source, names);
  std::vector<LoopEntry> entries;
  size_t next = unit.names.size();
  for (size_t i = 0; i < unit.names.size(); ++i) {
    entries.push_back({loaded[i], unit.row_registers[i].empty() ? nullptr : loaded[next++]});
  }
  return entries;
}

LoopEntry loop_kernel(CudaContext& ctx, const codegen::LoopKernel& kernel) {
  if (!ctx.states.loop_ir) ctx.states.loop_ir = std::make_unique<LoopKernels>();
  auto& memo = static_cast<LoopKernels&>(*ctx.states.loop_ir).loaded;
  std::string key = key_of(kernel);
  if (auto it = memo.find(key); it != memo.end()) return it->second;
  const LoopEntry entry = load_unit(ctx.kernels, loop_unit(kernel)).front();
  memo.emplace(std::move(key), entry);
  return entry;
}

namespace {

// max-autotune's grid and block for one launch (loop_ir_launch.h, launch_tuning.h): a known
// decision, or each candidate timed with CUDA events on ctx.stream (a warm-up run, then the
// best of three), or codegen's `config` when nothing is known and nothing may be timed.
LaunchDims tuned_dims(CudaContext& ctx, cudaKernel_t kernel, const engine::FusedGroup& fused,
                      const codegen::CudaLaunchConfig& config, void** args, const char* name,
                      const TuneLaunch& tune) {
  const LaunchDims fallback{config.grid, config.block};
  const bool rows = fused.kernel.inner_rank != 0;
  int64_t units = 1;
  if (rows) {
    units = fused.launch.outer_count();
  } else {
    for (int64_t s : fused.launch.sizes) units *= s;
  }
  const auto run = [&](LaunchDims d) {
    launch(kernel, dim3(d.grid), dim3(d.block), args, config.shared_bytes, ctx.stream, name);
  };
  std::vector<std::pair<LaunchDims, double>> timed;  // candidates resolving alike run once
  const auto seconds = [&](const LaunchChoice& c) -> double {
    const LaunchDims d = resolve_launch(c, fallback, units, config.threads_per_unit);
    for (const auto& [seen, s] : timed) {
      if (seen == d) return s;
    }
    TimingEvents events;
    run(d);  // warm-up
    float best_ms = 0;
    for (int rep = 0; rep < 3; ++rep) {
      check(cudaEventRecord(events.start, ctx.stream), "cudaEventRecord (autotune)");
      run(d);
      check(cudaEventRecord(events.stop, ctx.stream), "cudaEventRecord (autotune)");
      check(cudaEventSynchronize(events.stop), "cudaEventSynchronize (autotune)");
      float ms = 0;
      check(cudaEventElapsedTime(&ms, events.start, events.stop), "cudaEventElapsedTime");
      best_ms = rep == 0 ? ms : std::min(best_ms, ms);
    }
    timed.emplace_back(d, best_ms * 1e-3);
    return best_ms * 1e-3;
  };
  const std::string key = tune.tuning.key(std::string(tune.kernel), units, config.threads_per_unit);
  const std::optional<LaunchChoice> choice =
      tune.measure ? tune.tuning.choice_for(key, launch_candidates(rows), seconds)
                   : tune.tuning.find(key);
  if (!choice || !fits(*choice, rows)) return fallback;
  return resolve_launch(*choice, fallback, units, config.threads_per_unit);
}

}  // namespace

void launch_loop_kernel(CudaContext& ctx, LoopEntry entry, const engine::FusedGroup& fused,
                        std::span<void* const> ptrs, std::string_view what,
                        const TuneLaunch* tune) {
  const codegen::CudaLaunchConfig config =
      codegen::cuda_launch_config(fused.kernel, fused.launch, ctx.sm_count, ptrs);
  if (config.grid == 0) return;
  if (config.row_registers && entry.row_registers == nullptr) {
    throw Error(ErrorCode::Internal, "the CUDA kernel of " + std::string(what) +
                                         " was loaded without its row-register entry point");
  }
  const cudaKernel_t kernel = config.row_registers ? entry.row_registers : entry.loop;
  std::vector<uint64_t> params = codegen::cuda_params(fused.kernel, fused.launch, ptrs);
  void* args[] = {params.data()};
  const std::string name = "launching the CUDA kernel of " + std::string(what);
  const LaunchDims dims = tune && !config.row_registers
                              ? tuned_dims(ctx, kernel, fused, config, args, name.c_str(), *tune)
                              : LaunchDims{config.grid, config.block};
  (ctx.programmatic_launch ? launch_programmatic : launch)(
      kernel, dim3(dims.grid), dim3(dims.block), args, config.shared_bytes, ctx.stream,
      name.c_str());
}

RowSplit split_rows(std::span<const int64_t> shape, std::span<const int64_t> strides, int inner,
                    ir::Op op, ir::DType input, ir::DType result, int sm_count) {
  RowSplit split;
  const size_t rank = shape.size();
  if (inner < 1 || static_cast<size_t>(inner) > rank) return split;
  const bool lossless =
      op == ir::Op::max || op == ir::Op::min ||
      (op == ir::Op::sum &&
       ((input == result && (input == ir::DType::Float32 || input == ir::DType::Float64)) ||
        (result == ir::DType::Int64 && !ir::is_floating(input))));
  if (!lossless) return split;
  int64_t rows = 1;
  for (size_t d = 0; d + inner < rank; ++d) rows *= shape[d];
  // The reduced dimensions as one run with one step, size-1 dimensions ignored.
  int64_t length = 1, step = 0;
  for (size_t d = rank; d-- > rank - inner;) {
    if (shape[d] == 1) continue;
    if (step == 0) {
      step = strides[d];
    } else if (strides[d] != step * length) {
      return split;
    }
    length *= shape[d];
  }
  const int64_t sms = std::max(1, sm_count);
  if (rows >= sms || length < (int64_t{1} << 20) || step == 0) return split;
  constexpr int64_t kMinChunk = 4096;
  const int64_t target = std::min(4 * sms / rows + 1, length / kMinChunk);
  for (int64_t k = target; k >= 2; --k) {
    if (length % k == 0) {
      split.chunks = k;
      split.row_length = length;
      split.step = step;
      return split;
    }
  }
  return split;
}

}  // namespace tensord::cuda
