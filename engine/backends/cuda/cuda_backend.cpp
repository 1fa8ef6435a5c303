#include "engine/backends/cuda/cuda_backend.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "engine/backends/cuda/caching_allocator.h"
#include "engine/backends/cuda/capture_pool.h"
#include "engine/backends/cuda/cublaslt_matmul.h"
#include "engine/backends/cuda/cuda_check.h"
#include "engine/backends/cuda/cuda_ops.h"
#include "engine/backends/cuda/cuda_resources.h"
#include "engine/backends/cuda/cupti_tracer.h"
#include "engine/backends/cuda/movement_launch.h"
#include "engine/ir/error.h"

namespace tensord::cuda {
namespace {

void check_range(size_t buffer_bytes, size_t offset, size_t n) {
  if (offset > buffer_bytes || n > buffer_bytes - offset) {
    throw Error(ErrorCode::Internal, "byte range [" + std::to_string(offset) + ", " +
                                         std::to_string(offset) + " + " + std::to_string(n) +
                                         ") is outside a buffer of " +
                                         std::to_string(buffer_bytes) + " bytes");
  }
}

}  // namespace

// Members in construction order; destroyed in reverse (the workspace goes back to the
// allocator before the allocator goes).
struct CudaBackend::State {
  State(const CudaDeviceProperties& device, const CudaBackendOptions& options)
      : source(device.index, device.name),
        events(device.index),
        allocator(source, &events, AllocatorOptions{options.max_reserved, nullptr}),
        stream(device.index),
        staging(options.staging_bytes),
        workspace_bytes(options.matmul_workspace_bytes),
        workspace(allocator.allocate(workspace_bytes, stream.id())),
        matmul(workspace, workspace_bytes),
        arch(device.compute_major * 10 + device.compute_minor),
        sm_count(device.sm_count),
        kernels(CudaKernelCacheOptions{options.kernel_cache_dir, arch}) {}
  ~State() {
    cudaStreamSynchronize(stream.get());
    allocator.free(workspace);
    workspace_ticket.reset();
    if (ledger) ledger->segment_freed(reinterpret_cast<uintptr_t>(staging.data()));
  }

  CudaSegmentSource source;
  CudaStreamEvents events;
  CachingAllocator allocator;
  Stream stream;
  PinnedBuffer staging;
  size_t workspace_bytes;
  void* workspace;
  LtMatmul matmul;
  int arch;
  int sm_count;
  CudaKernelCache kernels;
  FamilyStates families;
  // The daemon's memory ledger (set_memory_ledger), and the cuBLASLt workspace's block in it.
  std::shared_ptr<profiler::MemoryLedger> ledger;
  profiler::BlockTicket workspace_ticket;
};

namespace {

// A block of the caching allocator, returned to it when the last value using it goes. It shares
// the backend's state, so a tensor that outlives the backend (at shutdown) still frees safely.
class CudaBuffer final : public engine::Buffer {
 public:
  CudaBuffer(std::shared_ptr<CudaBackend::State> state, void* ptr, size_t bytes)
      : Buffer(ptr, bytes), state_(std::move(state)) {}
  ~CudaBuffer() override { state_->allocator.free(data()); }

 private:
  std::shared_ptr<CudaBackend::State> state_;
};

}  // namespace

CudaBackend::CudaBackend(const CudaDeviceProperties& device, CudaBackendOptions options)
    : device_(device.index), fuse_(options.fuse) {
  cudaError_t status = cudaSetDevice(device.index);
  if (status == cudaSuccess) status = cudaFree(nullptr);  // creates the primary context now
  if (status != cudaSuccess) {
    throw Error(ErrorCode::Unsupported, "cannot open CUDA device " + std::to_string(device.index) +
                                            ": " + error_text(status));
  }
  info_.kind = "cuda";
  info_.index = device.index;
  info_.name = device.name + " (compute " + std::to_string(device.compute_major) + "." +
               std::to_string(device.compute_minor) + ")";
  info_.total_memory = device.total_memory;
  info_.threads = device.sm_count;
  state_ = std::make_shared<State>(device, options);
}

CudaBackend::~CudaBackend() = default;

void CudaBackend::set_segment_observer(std::shared_ptr<profiler::SegmentObserver> observer) {
  allocator().set_observer(std::move(observer));
}

namespace {

profiler::AllocSite device_site(profiler::MemoryCategory category, const char* what,
                                const void* ptr, uint64_t stream) {
  profiler::AllocSite site;
  site.device_owned = true;
  site.category = category;
  site.op = what;
  site.address = reinterpret_cast<uintptr_t>(ptr);
  site.stream = stream;
  return site;
}

}  // namespace

void CudaBackend::set_memory_ledger(std::shared_ptr<profiler::MemoryLedger> ledger) {
  State& st = *state_;
  st.allocator.set_observer(ledger);
  const auto staging = reinterpret_cast<uintptr_t>(st.staging.data());
  if (st.ledger) st.ledger->segment_freed(staging);
  st.workspace_ticket.reset();
  st.ledger = std::move(ledger);
  if (!st.ledger) return;
  // Pinned host memory: reserved in the staging category, outside the device's total.
  st.ledger->segment_allocated(staging, st.staging.size(), 0, profiler::MemoryCategory::Staging);
  // Held for the backend's life, in the allocator's segments but never a tensor's.
  st.workspace_ticket = st.ledger->track(
      st.workspace_bytes, device_site(profiler::MemoryCategory::Workspace, "cublaslt workspace",
                                      st.workspace, st.stream.id()));
}

std::shared_ptr<profiler::MemoryLedger> CudaBackend::memory_ledger() const {
  return state_->ledger;
}

engine::Backend::FreeMemory CudaBackend::free_memory() const {
  return {state_->allocator.cached_free_bytes(), state_->allocator.largest_free_block()};
}

std::shared_ptr<engine::Buffer> CudaBackend::scratch(size_t bytes,
                                                     profiler::MemoryCategory category,
                                                     const char* what) {
  std::shared_ptr<engine::Buffer> buffer = allocate(bytes);
  // Inside a capture the buffer is the graph pool's: it leaves this category for the pool's
  // when it is released (CapturePool).
  if (state_->ledger) {
    buffer->ticket = state_->ledger->track(
        bytes, device_site(category, what, buffer->data(), state_->stream.id()));
  }
  return buffer;
}

CachingAllocator& CudaBackend::allocator() {
  return state_->allocator;
}

AllocatorStats CudaBackend::allocator_stats() const {
  return state_->allocator.stats();
}

std::optional<cache::KernelCacheStats> CudaBackend::own_kernel_cache_stats() const {
  return state_kernels().stats();
}

engine::DeviceMemoryStats CudaBackend::memory_stats() const {
  engine::DeviceMemoryStats out;
  out.allocator = to_allocator_memory_stats(state_->allocator.stats());
  return out;
}

void CudaBackend::synchronize() {
  state_->stream.synchronize();
}

std::shared_ptr<engine::Buffer> CudaBackend::allocate(size_t bytes) {
  DeviceGuard guard(device_);
  if (capture_) return capture_->allocate(bytes, [&] { return allocate_block(bytes); });
  return allocate_block(bytes);
}

std::shared_ptr<engine::Buffer> CudaBackend::allocate_block(size_t bytes) {
  void* ptr = state_->allocator.allocate(bytes, state_->stream.id());
  return std::make_shared<CudaBuffer>(state_, ptr, bytes);
}

// Host bytes go through the pinned staging buffer in chunks: pageable memory would make the
// driver stage it anyway, synchronously and through its own smaller buffer.
void CudaBackend::write(engine::Buffer& dst, size_t offset, const void* src, size_t n) {
  check_range(dst.bytes(), offset, n);
  DeviceGuard guard(device_);
  const size_t chunk = state_->staging.size();
  for (size_t done = 0; done < n; done += chunk) {
    const size_t len = std::min(chunk, n - done);
    // The previous chunk's copy must have left the staging buffer before it is refilled.
    state_->stream.synchronize();
    std::memcpy(state_->staging.data(), static_cast<const char*>(src) + done, len);
    check(cudaMemcpyAsync(static_cast<char*>(dst.data()) + offset + done, state_->staging.data(),
                          len, cudaMemcpyHostToDevice, state_->stream.get()),
          "cudaMemcpyAsync (host to device)");
  }
  state_->stream.synchronize();
}

void CudaBackend::trace_step(const engine::RunProfile& profile, uint32_t step) {
  DeviceGuard guard(device_);
  if (!tracer_) tracer_ = std::make_unique<CuptiTracer>(device_);
  tracer_->step(profile, step);
}

void CudaBackend::trace_end(const engine::RunProfile& profile) {
  DeviceGuard guard(device_);
  if (tracer_) tracer_->finish(profile, state_->stream.get());
}

void CudaBackend::copy(engine::Buffer& dst, size_t dst_offset, const engine::Buffer& src,
                       size_t src_offset, size_t n) {
  check_range(dst.bytes(), dst_offset, n);
  check_range(src.bytes(), src_offset, n);
  if (n == 0) return;
  DeviceGuard guard(device_);
  check(cudaMemcpyAsync(static_cast<char*>(dst.data()) + dst_offset,
                        static_cast<const char*>(src.data()) + src_offset, n,
                        cudaMemcpyDeviceToDevice, state_->stream.get()),
        "cudaMemcpyAsync (device to device)");
}

void CudaBackend::read(const engine::Buffer& src, size_t offset, void* dst, size_t n) {
  check_range(src.bytes(), offset, n);
  DeviceGuard guard(device_);
  const size_t chunk = state_->staging.size();
  for (size_t done = 0; done < n; done += chunk) {
    const size_t len = std::min(chunk, n - done);
    check(cudaMemcpyAsync(state_->staging.data(),
                          static_cast<const char*>(src.data()) + offset + done, len,
                          cudaMemcpyDeviceToHost, state_->stream.get()),
          "cudaMemcpyAsync (device to host)");
    state_->stream.synchronize();  // queued kernels writing src finish first: same stream
    std::memcpy(static_cast<char*>(dst) + done, state_->staging.data(), len);
  }
}

const CudaKernelCache& CudaBackend::state_kernels() const {
  return state_->kernels;
}

cudaStream_t CudaBackend::stream() const {
  return state_->stream.get();
}

CudaContext CudaBackend::context() {
  State& st = *state_;
  return CudaContext{device_,
                     st.arch,
                     st.sm_count,
                     st.stream.get(),
                     st.kernels,
                     st.families,
                     precision_,
                     [this](size_t bytes) {
                       return scratch(bytes, profiler::MemoryCategory::Scratch, "kernel scratch");
                     }};
}

std::vector<engine::TensorValue> CudaBackend::run_data_dependent(
    const ir::Node& node, std::span<const engine::TensorValue> inputs) {
  DeviceGuard guard(device_);
  CudaContext ctx = context();
  // Its output comes from scratch too, and the executor does not track it: the ledger keeps it
  // (with the op's temporaries) as the device's, under the tensor category.
  ctx.scratch = [this](size_t bytes) {
    return scratch(bytes, profiler::MemoryCategory::Tensor, "data-dependent op output");
  };
  return {run_dynamic(ctx, node, inputs)};  // the single-output ones: unique has no CUDA path
}

void CudaBackend::run(const ir::Node& node, std::span<const engine::TensorValue> inputs,
                      std::span<const engine::TensorValue> outputs) {
  DeviceGuard guard(device_);
  State& st = *state_;
  if (ir::op_info(node.op).kind == ir::OpKind::Matmul) {
    if (inputs.size() != 2 || outputs.size() != 1) {
      throw Error(ErrorCode::Internal, "matmul expects two inputs and one output");
    }
    // cuBLASLt multiplies operands of the output's dtype as stored: a conj view (complex) or
    // an operand of another dtype is first materialised in that dtype (movement's copy, which
    // conjugates and casts by the CPU's rules).
    const ir::DType dtype = outputs[0].type.dtype;
    engine::TensorValue operands[2] = {inputs[0], inputs[1]};
    for (engine::TensorValue& v : operands) {
      if (v.conj || v.type.dtype != dtype) {
        CudaContext ctx = context();
        v = movement::dense(ctx, v, dtype);
      }
    }
    st.matmul.run(operands[0], operands[1], outputs[0], precision_, st.stream.get());
    return;
  }
  // Scratch is tracked in the category of the family that asks for it: the library families'
  // is their workspace (cuDNN, cuFFT work areas, cuSOLVER), the kernels' their temporaries.
  profiler::MemoryCategory category = profiler::MemoryCategory::Scratch;
  const char* what = "kernel scratch";
  CudaContext ctx{device_,
                  st.arch,
                  st.sm_count,
                  st.stream.get(),
                  st.kernels,
                  st.families,
                  precision_,
                  [this, &category, &what](size_t bytes) {
                    return scratch(bytes, category, what); }};
  using Family = bool (*)(CudaContext&, const ir::Node&, Values, Values);
  struct FamilyEntry {
    Family run;
    profiler::MemoryCategory category;
    const char* what;
  };
  constexpr auto kScratch = profiler::MemoryCategory::Scratch;
  constexpr auto kWorkspace = profiler::MemoryCategory::Workspace;
  static constexpr FamilyEntry kFamilies[] = {
      {run_loop_ir, kScratch, "kernel scratch"},  {run_creation, kScratch, "kernel scratch"},
      {run_movement, kScratch, "kernel scratch"}, {run_index, kScratch, "kernel scratch"},
      {run_reduce, kScratch, "kernel scratch"},   {run_scan, kScratch, "kernel scratch"},
      {run_sort, kScratch, "kernel scratch"},     {run_dnn, kWorkspace, "cudnn workspace"},
      {run_fft, kWorkspace, "cufft work area"},   {run_solver, kWorkspace, "cusolver workspace"}};
  for (const FamilyEntry& family : kFamilies) {
    category = family.category;
    what = family.what;
    if (family.run(ctx, node, inputs, outputs)) return;
  }
  std::string dtypes;
  for (const engine::TensorValue& v : inputs) {
    dtypes += (dtypes.empty() ? "" : ", ") + std::string(ir::name(v.type.dtype));
  }
  throw Error(ErrorCode::Unsupported,
              "the CUDA backend does not run " + std::string(ir::name(node.op)) + " on (" + dtypes +
                  ") yet (docs/cuda.md lists the ops without CUDA kernels)");
}

}  // namespace tensord::cuda
