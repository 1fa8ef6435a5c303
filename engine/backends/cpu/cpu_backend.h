// The CPU backend: host memory, oneDNN matmul, and our own kernels for everything else.
#pragma once

#include <memory>
#include <mutex>

#include "engine/exec/backend.h"

namespace tensord::cache {
class KernelCache;
}

namespace tensord::cpu {

class HostBlockCache;
class Matmul;
class FftPlanner;
class LaunchTuning;
class EpilogueTuning;

struct KernelContext;

class CpuBackend final : public engine::Backend {
 public:
  // threads <= 0: every hardware thread.
  explicit CpuBackend(int threads);
  // With a kernel cache the backend generates code for fused groups (fused.cpp).
  CpuBackend(int threads, std::shared_ptr<cache::KernelCache> kernels);
  ~CpuBackend() override;
  CpuBackend(const CpuBackend&) = delete;
  CpuBackend& operator=(const CpuBackend&) = delete;

  const engine::DeviceInfo& info() const override { return info_; }
  std::shared_ptr<engine::Buffer> allocate(size_t bytes) override;
  void run(const ir::Node& node, std::span<const engine::TensorValue> inputs,
           std::span<const engine::TensorValue> outputs) override;
  std::vector<engine::TensorValue> run_data_dependent(
      const ir::Node& node, std::span<const engine::TensorValue> inputs) override;
  bool can_fuse() const override { return kernels_ != nullptr; }
  std::shared_ptr<const engine::CompiledKernels> compile(
      std::span<const engine::FusedGroup> groups) override;
  void run_fused(const engine::CompiledKernels& kernels, uint32_t group,
                 const engine::FusedGroup& fused, std::span<const engine::TensorValue> inputs,
                 std::span<const engine::TensorValue> outputs) override;
  // oneDNN's matmul with post-ops or the unfused pair, as measured per problem
  // (epilogue_tuning.h).
  void run_matmul_epilogue(const engine::CompiledKernels& kernels, uint32_t group,
                           const engine::FusedGroup& fused,
                           std::span<const engine::TensorValue> inputs,
                           std::span<const engine::TensorValue> outputs,
                           const std::function<void()>& unfused) override;
  bool kernels_cached(std::span<const engine::FusedGroup> groups) const override;
  // compile() only emits and calls the kernel cache, which compiles without its lock.
  bool compiles_in_background() const override { return kernels_ != nullptr; }
  // Nothing is tied to the worker's thread but its OpenMP team, which a lent engine does not
  // use (set_single_threaded; scheduler::SessionQueue::borrow_idle_engine).
  bool runs_on_any_thread() const override { return true; }
  void set_single_threaded(bool on) override { run_threads_ = on ? 1 : info_.threads; }
  // max-autotune's measured launch configurations (launch_tuning.h); null without a kernel
  // cache.
  LaunchTuning* launch_tuning();
  // The measured matmul epilogue decisions (epilogue_tuning.h); null without a kernel cache.
  EpilogueTuning* epilogue_tuning();
  void write(engine::Buffer& dst, size_t offset, const void* src, size_t n) override;
  void copy(engine::Buffer& dst, size_t dst_offset, const engine::Buffer& src, size_t src_offset,
            size_t n) override;
  void read(const engine::Buffer& src, size_t offset, void* dst, size_t n) override;
  // The host block cache's figures; the CPU has no caching allocator to report.
  engine::DeviceMemoryStats memory_stats() const override;
  // The host block cache's blocks are the segments.
  void set_segment_observer(std::shared_ptr<profiler::SegmentObserver> observer) override;
  // The above, and where kernel scratch is tracked (scratch.h) while a step's session records
  // memory (set_step_site).
  void set_memory_ledger(std::shared_ptr<profiler::MemoryLedger> ledger) override;
  void set_step_site(const profiler::AllocSite* site) override { step_site_ = site; }

 private:
  // The context of a kernel run now: threads, and where its scratch is tracked.
  KernelContext context() const;

  engine::DeviceInfo info_;
  int run_threads_ = 1;              // info_.threads, or 1 while single-threaded
  std::unique_ptr<Matmul> matmul_;   // oneDNN engine, stream and primitive cache
  std::unique_ptr<FftPlanner> fft_;  // issue 4: FFTW plans, one planner mutex per backend
  std::shared_ptr<cache::KernelCache> kernels_;
  std::once_flag tuning_once_;
  std::unique_ptr<LaunchTuning> tuning_;  // made on first use: it asks the compiler's identity
  std::once_flag epilogue_once_;
  std::unique_ptr<EpilogueTuning> epilogue_tuning_;  // the same
  std::unique_ptr<HostBlockCache> blocks_;           // tensors' large buffers, reused
  std::shared_ptr<profiler::MemoryLedger> ledger_;   // the device's (set_memory_ledger)
  // The running step's site while its session records memory (worker thread only); null
  // otherwise, and then scratch is not tracked.
  const profiler::AllocSite* step_site_ = nullptr;
};

}  // namespace tensord::cpu
