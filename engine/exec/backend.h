// What the engine needs from a device. Backends (engine/backends/*) implement it and never
// include each other; the engine never includes a backend.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "engine/cache/kernel_cache_stats.h"
#include "engine/exec/matmul_precision.h"
#include "engine/exec/memory_stats.h"
#include "engine/exec/run_profile.h"
#include "engine/exec/tensor_value.h"
#include "engine/ir/graph.h"
#include "engine/plan/plan.h"
#include "engine/profiler/segment_observer.h"

namespace tensord::engine {

struct DeviceInfo {
  std::string kind;  // "cpu" or "cuda"
  int index = 0;
  std::string name;
  uint64_t total_memory = 0;  // bytes
  int threads = 1;            // CPU: worker threads; CUDA: SM count
};

// A recording of one plan run's device work (a CUDA graph), replayed instead of launching the
// plan's kernels one by one. Owns every buffer the recorded work touches.
class CapturedRun {
 public:
  virtual ~CapturedRun() = default;
};

class Backend {
 public:
  virtual ~Backend() = default;

  virtual const DeviceInfo& info() const = 0;

  // Throws tensord::Error(OutOfMemory) naming the request when the device cannot hold it.
  virtual std::shared_ptr<Buffer> allocate(size_t bytes) = 0;

  // Runs one primitive node (any kind but Input, View and Composite). Inputs may be strided
  // views with any strides; outputs are freshly allocated, contiguous and typed as the node's
  // outputs. Throws tensord::Error(Unsupported) for a dtype or op it lacks.
  virtual void run(const ir::Node& node, std::span<const TensorValue> inputs,
                   std::span<const TensorValue> outputs) = 0;

  // Runs one node whose output shapes depend on its input values (ir::is_data_dependent):
  // inputs are contiguous; the backend sizes and allocates every output of the node and
  // returns them in order, contiguous. The engine calls it between plans
  // (docs/design-notes.md).
  virtual std::vector<TensorValue> run_data_dependent(const ir::Node& node,
                                                      std::span<const TensorValue> inputs) {
    throw Error(ErrorCode::Unsupported, "this backend does not run " +
                                            std::string(ir::name(node.op)) +
                                            " (an op with a data-dependent output shape)");
  }

  // Fusion, for backends with a code generator (the engine plans without fusion otherwise).
  // compile() builds the kernels of a plan's fused groups (Internal error with the
  // compiler's message when generated code fails to compile); run_fused() runs one of them
  // on strided inputs into fresh contiguous outputs, as run() does for one node.
  virtual bool can_fuse() const { return false; }
  virtual std::shared_ptr<const CompiledKernels> compile(std::span<const FusedGroup> groups) {
    return nullptr;
  }
  virtual void run_fused(const CompiledKernels& kernels, uint32_t group, const FusedGroup& fused,
                         std::span<const TensorValue> inputs,
                         std::span<const TensorValue> outputs) {}
  // A fused group with a matmul epilogue (FusedGroup::epilogue): `inputs` are the matmul's
  // operands then the tensors the chain adds, `outputs` the chain's result. `unfused` runs the
  // matmul into a temporary and the group's kernel after it. A backend whose matmul library
  // applies the epilogue decides per shape, by measuring both, which of the two to run; the
  // default runs `unfused`. Either way every element of the output is written.
  virtual void run_matmul_epilogue(const CompiledKernels& kernels, uint32_t group,
                                   const FusedGroup& fused, std::span<const TensorValue> inputs,
                                   std::span<const TensorValue> outputs,
                                   const std::function<void()>& unfused) {
    unfused();
  }
  // Called once per new plan, before compile(): a backend that compiles the kernels of single
  // nodes when they first run may compile the plan's all at once instead (CUDA: several kernels
  // to an NVRTC program, several programs in parallel). It may ignore failures there (the
  // step that runs the kernel reports them, naming its node); anything it throws fails the plan.
  virtual void prepare(const Plan& plan) {}
  // Whether compile() would find every kernel of `groups` loaded already (for explain).
  virtual bool kernels_cached(std::span<const FusedGroup> groups) const { return false; }
  // Whether compile() may run on another thread while this backend runs steps on the engine's
  // (EngineOptions::compile_in_background). CUDA says no for now: its compile loads modules
  // into the device's context, which has not been tried from a second thread.
  virtual bool compiles_in_background() const { return false; }
  // Whether steps may run on a thread other than the worker's, one thread at a time, while the
  // worker waits (Engine::lendable). CUDA says no: the device's context and the sessions'
  // streams are set up on the worker's thread.
  virtual bool runs_on_any_thread() const { return false; }
  // Until called with false, steps run on the calling thread alone (the engine lent to another
  // thread: that thread must not start a thread team of its own, whose threads would spin beside
  // the worker's team on the same cores).
  virtual void set_single_threaded(bool on) {}

  // Graph capture, for backends with a launch overhead worth saving (CUDA graphs). Between
  // begin_capture() and end_capture(), run() and run_fused() record their device work instead
  // of doing it, and allocate() draws from a pool that the capture owns, so that replays find
  // the same addresses and nothing recorded is handed to anyone else. end_capture() returns
  // nullptr when the recorded work cannot be replayed (a step needed the host, say); the
  // engine then runs the plan as usual. Nothing recorded has run: replay() runs it.
  virtual bool can_capture() const { return false; }
  // What a recording bakes in besides the plan (the float32 matmul precision, say): a plan
  // recorded under one key is recorded again under another.
  virtual uint64_t capture_key() const { return 0; }
  virtual void begin_capture() {}
  virtual std::unique_ptr<CapturedRun> end_capture() { return nullptr; }
  virtual void replay(CapturedRun&) {}

  // Device-side tracing of a profiled run: trace_step() before each step (the device work it
  // enqueues belongs to that step), trace_end() after the last one (the backend adds what ran
  // on the device, kernels and copies with their times, to the profile, then or later: a GPU's
  // records come once its work ran, so the CUDA backend collects them in batches instead of
  // waiting for each run), trace_flush() before a profile stops (every record of the runs
  // traced so far is in the profiles when it returns). Backends whose work is the host's own
  // (the CPU) have nothing to add.
  virtual void trace_step(const RunProfile& profile, uint32_t step) {}
  virtual void trace_end(const RunProfile& profile) {}
  virtual void trace_flush() {}

  // Device-to-device bytes, in order with the backend's other work.
  virtual void copy(Buffer& dst, size_t dst_offset, const Buffer& src, size_t src_offset,
                    size_t n) = 0;

  // Host <-> device bytes for a range of a buffer.
  virtual void write(Buffer& dst, size_t offset, const void* src, size_t n) = 0;
  virtual void read(const Buffer& src, size_t offset, void* dst, size_t n) = 0;

  // Host memory that will be transferred from or to many times (a client's shared transfer
  // buffer, mapped once): page-locked for the device's DMA, so that write() and read() move it
  // without a staging copy, while the returned handle lives (it unlocks the memory when it
  // goes). Null where the backend has no use for it or the system refuses; transfers then
  // stage as before. The memory must outlive the handle.
  virtual std::shared_ptr<void> pin_host_memory(void* data, size_t bytes, bool read_only) {
    return nullptr;
  }

  // Sessions. The scheduler names the session whose job runs next (set_session, before each
  // job, on the device's worker thread; 0: no session) and the sessions that closed
  // (end_session, on the same thread, after their last job). A backend with per-session device
  // state (CUDA: a stream per session, so that sessions overlap on the device) keys it by the
  // id; the others ignore both.
  virtual void set_session(uint64_t session) {}
  virtual void end_session(uint64_t session) {}

  // The precision float32 matmuls may use from now on (the scheduler sets the session's before
  // running its work). Backends that always compute in full float32 keep the default.
  virtual void set_float32_matmul_precision(Float32MatmulPrecision) {}
  // The precision they run at now: what a profile tags float32 matmul steps with (the tf32
  // recommendation). Full float32 for backends that have no other.
  virtual Float32MatmulPrecision float32_matmul_precision() const {
    return Float32MatmulPrecision::Highest;
  }
  // Whether the device is an accelerator whose work the host only enqueues (profiles tag its
  // runs and steps "on GPU": the CUDA graph, TF32 and launch-overhead rules are about them).
  bool on_gpu() const { return info().kind != "cpu"; }

  // What the device can say about its memory (Session.memoryStats); the default, nothing.
  // Called from the RPC thread while the device's worker runs: implementations take their
  // allocator's lock and never wait for the device.
  virtual DeviceMemoryStats memory_stats() const { return {}; }

  // The figures of a kernel cache the backend owns (CUDA: its CUBINs), for SessionStats;
  // nothing for a backend that has none or compiles through the daemon's shared cache (the
  // CPU backend: the daemon reports that one itself). Thread-safe, like memory_stats.
  virtual std::optional<cache::KernelCacheStats> own_kernel_cache_stats() const {
    return std::nullopt;
  }

  // Where the device's allocator reports the segments it takes and gives back (the daemon's
  // memory ledger, issue 7). Set once, before work runs. Devices without segments ignore it.
  virtual void set_segment_observer(std::shared_ptr<profiler::SegmentObserver>) {}
  // The daemon's memory ledger (issue 7): the segment observer above, and where a device tracks
  // the memory it holds for itself in its own category (library workspaces, CUDA graph pools)
  // and its host staging. Set once, before work runs.
  virtual void set_memory_ledger(std::shared_ptr<profiler::MemoryLedger> ledger) {
    set_segment_observer(std::move(ledger));
  }
  // The step that runs now, while its session records memory (issue 7): the session's profile,
  // the request, the op and the user's line, category scratch. The executor names it before the
  // step (and the engine before a data-dependent node) and clears it (nullptr) after, on the
  // worker thread; `site` lives until then. A backend tracks the temporaries its kernels take
  // for themselves under it in the ledger given to set_memory_ledger. Never called for a
  // session that does not record memory.
  virtual void set_step_site(const profiler::AllocSite* site) {}

  // The free memory the device's allocator caches and its largest free block, in bytes, for
  // the out-of-memory report's fragmentation; zeros where the allocator does not know (the
  // host's). Thread-safe, like memory_stats.
  struct FreeMemory {
    uint64_t free_bytes = 0;
    uint64_t largest_free = 0;
  };
  virtual FreeMemory free_memory() const { return {}; }
};

}  // namespace tensord::engine
