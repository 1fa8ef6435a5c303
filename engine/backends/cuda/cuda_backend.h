// The CUDA backend: one device, a stream per session (session_streams.h) so that sessions'
// work overlaps on the device, device memory from the caching allocator, uploads and downloads
// chunked through pinned staging buffers on a copy stream, matmul through cuBLASLt, every other op
// through the op families of cuda_ops.h (kernels compiled at run time by NVRTC and cached by
// CudaKernelCache, and the CUDA libraries). An op no family runs throws Error(Unsupported)
// naming it (docs/cuda.md lists them). Free of CUDA headers, so that the server and the tests
// can include it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>

#include "engine/backends/cuda/allocator_stats.h"
#include "engine/backends/cuda/device_discovery.h"
#include "engine/backends/cuda/epilogue_tuning.h"
#include "engine/backends/cuda/launch_tuning.h"
#include "engine/backends/cuda/segment_source.h"
#include "engine/exec/backend.h"

struct CUstream_st;  // cudaStream_t, without the CUDA headers

namespace tensord::cuda {

struct CudaBackendOptions {
  uint64_t max_reserved = 0;               // bytes the allocator may reserve; 0: the device's
  size_t staging_bytes = size_t{8} << 20;  // each pinned staging buffer (a transfer's chunk)
  size_t staging_buffers = 2;              // at least 2: chunk i+1 is staged while i moves
  size_t max_session_streams = 32;         // past it, new sessions share streams
  size_t matmul_workspace_bytes = size_t{32} << 20;
  std::string kernel_cache_dir;  // compiled kernels on disk; "" keeps them in memory only
  bool fuse = true;              // generate fused kernels for the plans of non-eager sessions
  // Generated kernels launched programmatically on compute capability 9.0+ (CudaContext).
  bool programmatic_launch = true;
};

class CachingAllocator;
struct CudaContext;
class CudaKernelCache;
class CapturePool;
class CuptiTracer;
struct Staging;

class CudaBackend final : public engine::Backend {
 public:
  // Throws tensord::Error(Unsupported) naming the CUDA error when the device cannot be opened.
  explicit CudaBackend(const CudaDeviceProperties& device, CudaBackendOptions options = {});
  ~CudaBackend() override;
  CudaBackend(const CudaBackend&) = delete;
  CudaBackend& operator=(const CudaBackend&) = delete;

  const engine::DeviceInfo& info() const override { return info_; }
  std::shared_ptr<engine::Buffer> allocate(size_t bytes) override;
  // The caching allocator's cudaMalloc'd segments.
  void set_segment_observer(std::shared_ptr<profiler::SegmentObserver> observer) override;
  // The above, and: the cuBLASLt workspace, scratch (cuDNN workspaces, cuFFT work areas,
  // cuSOLVER workspaces, kernel temporaries) and idle CUDA graph pool buffers tracked as
  // device-owned blocks of their categories; the pinned staging buffer as a staging segment.
  void set_memory_ledger(std::shared_ptr<profiler::MemoryLedger> ledger) override;
  FreeMemory free_memory() const override;
  void run(const ir::Node& node, std::span<const engine::TensorValue> inputs,
           std::span<const engine::TensorValue> outputs) override;
  std::vector<engine::TensorValue> run_data_dependent(
      const ir::Node& node, std::span<const engine::TensorValue> inputs) override;
  bool can_fuse() const override { return fuse_; }
  // The plan's loop-IR kernels that no cache level holds, and its fused unit, compiled at once:
  // several kernels to an NVRTC program, programs in parallel (loop_ir_batch.h).
  void prepare(const engine::Plan& plan) override;
  std::shared_ptr<const engine::CompiledKernels> compile(
      std::span<const engine::FusedGroup> groups) override;
  void run_fused(const engine::CompiledKernels& kernels, uint32_t group,
                 const engine::FusedGroup& fused, std::span<const engine::TensorValue> inputs,
                 std::span<const engine::TensorValue> outputs) override;
  // cuBLASLt's epilogue (lt_epilogue.h) or the unfused pair, whichever measured faster for the
  // problem's shape class on its first uncaptured run, remembered in the kernel cache
  // directory's `tune/` (epilogue_tuning.h); unmapped chains unfused.
  void run_matmul_epilogue(const engine::CompiledKernels& kernels, uint32_t group,
                           const engine::FusedGroup& fused,
                           std::span<const engine::TensorValue> inputs,
                           std::span<const engine::TensorValue> outputs,
                           const std::function<void()>& unfused) override;
  bool kernels_cached(std::span<const engine::FusedGroup> groups) const override;
  bool can_capture() const override { return true; }
  uint64_t capture_key() const override { return static_cast<uint64_t>(precision_); }
  void begin_capture() override;
  std::unique_ptr<engine::CapturedRun> end_capture() override;
  void replay(engine::CapturedRun& run) override;
  void trace_step(const engine::RunProfile& profile, uint32_t step) override;
  void trace_end(const engine::RunProfile& profile) override;
  void trace_flush() override;
  // cudaHostRegister (portable; read-only where the mapping is): write() and read() then DMA
  // straight from and to the memory.
  std::shared_ptr<void> pin_host_memory(void* data, size_t bytes, bool read_only) override;
  // CuptiTracer::status(): why profiles have no device records, or how many CUPTI gave.
  std::string device_trace_status() const;
  void copy(engine::Buffer& dst, size_t dst_offset, const engine::Buffer& src, size_t src_offset,
            size_t n) override;
  void write(engine::Buffer& dst, size_t offset, const void* src, size_t n) override;
  void read(const engine::Buffer& src, size_t offset, void* dst, size_t n) override;
  engine::Float32MatmulPrecision float32_matmul_precision() const override { return precision_; }
  void set_float32_matmul_precision(engine::Float32MatmulPrecision precision) override {
    precision_ = precision;
  }
  // The session's stream becomes current (created on its first job); end_session releases it
  // for later sessions. Work outside any session (0) goes to the backend's own stream.
  void set_session(uint64_t session) override;
  void end_session(uint64_t session) override;
  // The stream that work is enqueued on now (the current session's), for tests and tracing.
  CUstream_st* current_stream() const;
  // Streams created for sessions so far (not counting the backend's own and the copy stream).
  size_t session_streams_created() const;

  // The caching allocator's statistics (thread-safe), and the same in the engine's form.
  AllocatorStats allocator_stats() const;
  engine::DeviceMemoryStats memory_stats() const override;
  std::optional<cache::KernelCacheStats> own_kernel_cache_stats() const override;
  // max-autotune's launch decisions for generated kernels: measured here, or read from the
  // kernel cache directory's `tune/` (launch_tuning.h).
  CudaLaunchTuning::Stats launch_tuning_stats() const;
  // The matmul epilogue decisions: measured here, or read from `tune/` (epilogue_tuning.h).
  CudaEpilogueTuning::Stats epilogue_tuning_stats() const;
  struct State;  // shared with the buffers it hands out
  CachingAllocator& allocator();
  // Waits for everything queued on every stream of the backend.
  void synchronize();

 private:
  engine::DeviceInfo info_;
  int device_;
  bool fuse_;
  engine::Float32MatmulPrecision precision_ = engine::Float32MatmulPrecision::Highest;
  std::shared_ptr<State> state_;
  std::shared_ptr<CapturePool> capture_;
  std::unique_ptr<CuptiTracer>
      tracer_;  // made on the first traced step  // set between begin_capture and end_capture
  CudaContext context();
  CUstream_st* stream() const { return current_stream(); }
  std::shared_ptr<engine::Buffer> allocate_block(size_t bytes);
  // Orders the current stream after the stream that last used `buffer` (an event wait) and
  // tells the allocator that the current stream uses its block (session_streams.h). Every
  // buffer that device work reads or writes passes through here first.
  void use(const engine::Buffer& buffer);
  void use(std::span<const engine::TensorValue> values);
  // Makes the current stream wait for the work queued on `other` so far.
  void wait_for(StreamId other);
  // Transfers (cuda_transfers.cpp): the staging buffers, and the copy stream, made to wait for
  // the stream that last used `buffer`.
  Staging& state_staging();
  CUstream_st* copy_stream_after(const engine::Buffer& buffer);
  // The current stream's cuBLASLt workspace (a recording's own while capturing, held by `hold`).
  void* matmul_workspace(std::shared_ptr<engine::Buffer>& hold);
  // Copies matmul operands whose layout one cuBLASLt call cannot take (matmul_layout.h).
  void fit_lt_layout(std::span<engine::TensorValue, 2> operands, const ir::Shape& out_shape);
  // Device memory for one node of a library family or kernel, tracked in `category`.
  std::shared_ptr<engine::Buffer> scratch(size_t bytes, profiler::MemoryCategory category,
                                          const char* what);
  const CudaKernelCache& state_kernels() const;
  std::shared_ptr<profiler::MemoryLedger> memory_ledger() const;
  CudaLaunchTuning& state_tuning();
};

}  // namespace tensord::cuda
