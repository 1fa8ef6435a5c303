#include "engine/backends/cuda/cuda_backend.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <string>
#include <unordered_map>

#include "engine/backends/cuda/caching_allocator.h"
#include "engine/backends/cuda/capture_pool.h"
#include "engine/backends/cuda/cublaslt_matmul.h"
#include "engine/backends/cuda/cuda_check.h"
#include "engine/backends/cuda/cuda_ops.h"
#include "engine/backends/cuda/cuda_resources.h"
#include "engine/backends/cuda/cupti_tracer.h"
#include "engine/backends/cuda/lt_epilogue.h"
#include "engine/backends/cuda/matmul_layout.h"
#include "engine/backends/cuda/movement_launch.h"
#include "engine/backends/cuda/session_streams.h"
#include "engine/backends/cuda/staging_pipeline.h"
#include "engine/ir/error.h"
#include "engine/plan/layout.h"

namespace tensord::cuda {

// Members in construction order; destroyed in reverse (the workspaces go back to the
// allocator before the allocator goes; the session streams go before the allocator).
struct CudaBackend::State {
  State(const CudaDeviceProperties& device, const CudaBackendOptions& options)
      : source(device.index, device.name),
        events(device.index),
        allocator(source, &events, AllocatorOptions{options.max_reserved, nullptr}),
        stream(device.index),
        copy_stream(device.index),
        order_event(device.index),
        staging(device.index, options.staging_bytes, options.staging_buffers),
        workspace_bytes(options.matmul_workspace_bytes),
        streams(stream.id(), options.max_session_streams, make_stream_factory(device.index),
                [](StreamId id) { cudaStreamDestroy(reinterpret_cast<cudaStream_t>(id)); }),
        arch(device.compute_major * 10 + device.compute_minor),
        sm_count(device.sm_count),
        programmatic_launch(options.programmatic_launch && arch >= 90),
        kernels(CudaKernelCacheOptions{options.kernel_cache_dir, arch}),
        // Decisions hold for one kind of device and one compiler: a directory shared by two
        // machines keeps one per machine.
        tuning(options.kernel_cache_dir,
               kernels.identity() + "|" + device.name + "|" + std::to_string(device.sm_count)),
        // cuBLASLt's choice depends on the device and the library, not on NVRTC.
        epilogues(options.kernel_cache_dir, device.name + "|sm_" + std::to_string(arch) + "|" +
                                                std::to_string(device.sm_count) + "|cublasLt " +
                                                std::to_string(cublasLtGetVersion())) {}
  ~State() {
    for (StreamId id : streams.all()) cudaStreamSynchronize(reinterpret_cast<cudaStream_t>(id));
    cudaStreamSynchronize(copy_stream.get());
    for (auto& [id, workspace] : workspaces) {
      allocator.free(workspace.ptr);
      workspace.ticket.reset();
    }
    if (ledger) {
      for (const auto& buffer : staging.buffers) {
        ledger->segment_freed(reinterpret_cast<uintptr_t>(buffer->data()));
      }
    }
  }

  static SessionStreams::Create make_stream_factory(int device) {
    return [device] {
      DeviceGuard guard(device);
      cudaStream_t created = nullptr;
      check(cudaStreamCreateWithFlags(&created, cudaStreamNonBlocking), "cudaStreamCreate");
      return reinterpret_cast<StreamId>(created);
    };
  }

  CudaSegmentSource source;
  CudaStreamEvents events;
  CachingAllocator allocator;
  Stream stream;       // work outside any session
  Stream copy_stream;  // uploads and downloads (cuda_transfers.cpp)
  Event order_event;   // cross-stream waits: re-recorded for each (a wait keeps its state)
  Staging staging;     // pinned chunks of uploads and downloads
  size_t workspace_bytes;
  LtMatmul matmul;
  SessionStreams streams;  // a stream per session; current: the running job's
  // A cuBLASLt workspace per stream, made on its first matmul: two streams' matmuls may run at
  // once, so they cannot share one. Each is a block of the ledger's workspace category.
  struct Workspace {
    void* ptr;
    profiler::BlockTicket ticket;
  };
  std::unordered_map<StreamId, Workspace> workspaces;
  int arch;
  int sm_count;
  bool programmatic_launch;
  CudaKernelCache kernels;
  FamilyStates families;
  CudaLaunchTuning tuning;       // max-autotune's launch decisions (launch_tuning.h)
  CudaEpilogueTuning epilogues;  // matmul epilogue decisions (epilogue_tuning.h)
  // The daemon's memory ledger (set_memory_ledger).
  std::shared_ptr<profiler::MemoryLedger> ledger;
};

namespace {

// A block of the caching allocator, returned to it when the last value using it goes. It shares
// the backend's state, so a tensor that outlives the backend (at shutdown) still frees safely.
// `use` is touched only by the device's worker thread (CudaBackend::use), like the streams.
class CudaBuffer final : public engine::Buffer {
 public:
  CudaBuffer(std::shared_ptr<CudaBackend::State> state, void* ptr, size_t bytes, StreamId stream)
      : Buffer(ptr, bytes), use{stream, stream}, state_(std::move(state)) {}
  ~CudaBuffer() override { state_->allocator.free(data()); }

  StreamUse use;

 private:
  std::shared_ptr<CudaBackend::State> state_;
};

}  // namespace

CudaBackend::CudaBackend(const CudaDeviceProperties& device, CudaBackendOptions options)
    : device_(device.index), fuse_(options.fuse) {
  // Checked before the device is touched, so that a bad setting says so on any machine.
  if (options.staging_bytes == 0 || options.staging_buffers < 2 ||
      options.max_session_streams == 0) {
    throw Error(ErrorCode::Internal,
                "CUDA backend options: needs staging_bytes > 0, staging_buffers >= 2 and "
                "max_session_streams >= 1 (got " +
                    std::to_string(options.staging_bytes) + ", " +
                    std::to_string(options.staging_buffers) + ", " +
                    std::to_string(options.max_session_streams) + ")");
  }
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

// A cuBLASLt workspace: held for the backend's life, in the allocator's segments but never a
// tensor's.
void track_workspace(CudaBackend::State& st, StreamId stream, CudaBackend::State::Workspace& w) {
  if (!st.ledger) return;
  w.ticket = st.ledger->track(st.workspace_bytes, device_site(profiler::MemoryCategory::Workspace,
                                                              "cublaslt workspace", w.ptr, stream));
}

}  // namespace

void CudaBackend::set_memory_ledger(std::shared_ptr<profiler::MemoryLedger> ledger) {
  State& st = *state_;
  st.allocator.set_observer(ledger);
  if (st.ledger) {
    for (const auto& buffer : st.staging.buffers) {
      st.ledger->segment_freed(reinterpret_cast<uintptr_t>(buffer->data()));
    }
  }
  for (auto& [id, workspace] : st.workspaces) workspace.ticket.reset();
  st.ledger = std::move(ledger);
  if (!st.ledger) return;
  // Pinned host memory: reserved in the staging category, outside the device's total.
  for (const auto& buffer : st.staging.buffers) {
    st.ledger->segment_allocated(reinterpret_cast<uintptr_t>(buffer->data()), buffer->size(), 0,
                                 profiler::MemoryCategory::Staging);
  }
  for (auto& [id, workspace] : st.workspaces) track_workspace(st, id, workspace);
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
        bytes, device_site(category, what, buffer->data(), state_->streams.current()));
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
  DeviceGuard guard(device_);
  for (StreamId id : state_->streams.all()) {
    check(cudaStreamSynchronize(reinterpret_cast<cudaStream_t>(id)), "cudaStreamSynchronize");
  }
  state_->copy_stream.synchronize();
}

void CudaBackend::set_session(uint64_t session) {
  DeviceGuard guard(device_);
  state_->streams.select(session);
  // Records of traced runs no profile stop collected (a dropped profile handle): not kept
  // waiting, with CUPTI on, past their age bound.
  if (tracer_ && tracer_->pending()) tracer_->flush_if_stale();
}

void CudaBackend::end_session(uint64_t session) {
  if (tracer_ && tracer_->pending()) {
    DeviceGuard guard(device_);
    tracer_->flush();
  }
  state_->streams.end(session);
}

cudaStream_t CudaBackend::current_stream() const {
  return reinterpret_cast<cudaStream_t>(state_->streams.current());
}

size_t CudaBackend::session_streams_created() const {
  return state_->streams.created();
}

void CudaBackend::wait_for(StreamId other) {
  if (capture_) {
    // An event recorded outside a capture cannot be waited on inside it. Thrown before the
    // buffer's record changes, so the plan's uncaptured run (the engine's fallback) waits.
    throw Error(ErrorCode::Internal,
                "a CUDA graph capture read a buffer last used by another stream (not recorded)");
  }
  State& st = *state_;
  check(cudaEventRecord(st.order_event.get(), reinterpret_cast<cudaStream_t>(other)),
        "cudaEventRecord (cross-stream order)");
  check(cudaStreamWaitEvent(stream(), st.order_event.get(), 0),
        "cudaStreamWaitEvent (cross-stream order)");
}

void CudaBackend::use(const engine::Buffer& buffer) {
  // Capture pools hand out aliases of the CudaBuffer itself: the cast sees through them.
  auto* cuda = dynamic_cast<const CudaBuffer*>(&buffer);
  if (cuda == nullptr) return;
  StreamUse& record = const_cast<CudaBuffer*>(cuda)->use;
  StreamUse next = record;
  const UseOrder order = use_on(next, state_->streams.current());
  if (order.wait_for != 0) wait_for(order.wait_for);
  if (order.record) state_->allocator.record_stream(cuda->data(), next.last);
  record = next;  // only once the wait is queued: a throw above leaves it as it was
}

Staging& CudaBackend::state_staging() {
  return state_->staging;
}

cudaStream_t CudaBackend::copy_stream_after(const engine::Buffer& buffer) {
  State& st = *state_;
  auto* cuda = dynamic_cast<const CudaBuffer*>(&buffer);
  const StreamId last = cuda != nullptr ? wait_before(cuda->use, st.copy_stream.id()) : 0;
  if (last != 0) {
    check(cudaEventRecord(st.order_event.get(), reinterpret_cast<cudaStream_t>(last)),
          "cudaEventRecord (before a transfer)");
    check(cudaStreamWaitEvent(st.copy_stream.get(), st.order_event.get(), 0),
          "cudaStreamWaitEvent (before a transfer)");
  }
  return st.copy_stream.get();
}

void CudaBackend::use(std::span<const engine::TensorValue> values) {
  for (const engine::TensorValue& v : values) {
    if (v.buffer) use(*v.buffer);
  }
}

void* CudaBackend::matmul_workspace(std::shared_ptr<engine::Buffer>& hold) {
  State& st = *state_;
  if (capture_) {
    // The recording owns its workspace: replays on another session's stream may run while
    // this stream's own matmuls use the stream's workspace.
    hold = allocate(st.workspace_bytes);
    return hold->data();
  }
  const StreamId current = st.streams.current();
  auto it = st.workspaces.find(current);
  if (it == st.workspaces.end()) {
    void* made = st.allocator.allocate(st.workspace_bytes, current);
    it = st.workspaces.emplace(current, State::Workspace{made, {}}).first;
    track_workspace(st, current, it->second);
  }
  return it->second.ptr;
}

std::shared_ptr<engine::Buffer> CudaBackend::allocate(size_t bytes) {
  DeviceGuard guard(device_);
  if (capture_) return capture_->allocate(bytes, [&] { return allocate_block(bytes); });
  return allocate_block(bytes);
}

std::shared_ptr<engine::Buffer> CudaBackend::allocate_block(size_t bytes) {
  const StreamId current = state_->streams.current();
  void* ptr = state_->allocator.allocate(bytes, current);
  return std::make_shared<CudaBuffer>(state_, ptr, bytes, current);
}

void CudaBackend::trace_step(const engine::RunProfile& profile, uint32_t step) {
  DeviceGuard guard(device_);
  if (!tracer_) tracer_ = std::make_unique<CuptiTracer>(device_);
  tracer_->step(profile, step);
}

std::string CudaBackend::device_trace_status() const {
  return tracer_ ? tracer_->status() : "no traced run yet";
}

void CudaBackend::trace_end(const engine::RunProfile& profile) {
  DeviceGuard guard(device_);
  if (tracer_) tracer_->finish(profile, stream());
}

void CudaBackend::trace_flush() {
  DeviceGuard guard(device_);
  if (tracer_) tracer_->flush();
}

void CudaBackend::copy(engine::Buffer& dst, size_t dst_offset, const engine::Buffer& src,
                       size_t src_offset, size_t n) {
  check_range(dst.bytes(), dst_offset, n);
  check_range(src.bytes(), src_offset, n);
  if (n == 0) return;
  DeviceGuard guard(device_);
  use(src);
  use(dst);
  check(cudaMemcpyAsync(static_cast<char*>(dst.data()) + dst_offset,
                        static_cast<const char*>(src.data()) + src_offset, n,
                        cudaMemcpyDeviceToDevice, stream()),
        "cudaMemcpyAsync (device to device)");
}

const CudaKernelCache& CudaBackend::state_kernels() const {
  return state_->kernels;
}

CudaLaunchTuning& CudaBackend::state_tuning() {
  return state_->tuning;
}

CudaLaunchTuning::Stats CudaBackend::launch_tuning_stats() const {
  return state_->tuning.stats();
}

CudaEpilogueTuning::Stats CudaBackend::epilogue_tuning_stats() const {
  return state_->epilogues.stats();
}

CudaContext CudaBackend::context() {
  State& st = *state_;
  return CudaContext{device_,
                     st.arch,
                     st.sm_count,
                     stream(),
                     st.kernels,
                     st.families,
                     precision_,
                     [this](size_t bytes) {
                       return scratch(bytes, profiler::MemoryCategory::Scratch, "kernel scratch");
                     },
                     st.programmatic_launch};
}

std::vector<engine::TensorValue> CudaBackend::run_data_dependent(
    const ir::Node& node, std::span<const engine::TensorValue> inputs) {
  DeviceGuard guard(device_);
  use(inputs);  // its outputs are allocated on the current stream
  CudaContext ctx = context();
  // Its outputs come from scratch too, and the executor does not track them: the ledger keeps
  // them (with the op's temporaries) as the device's, under the tensor category.
  ctx.scratch = [this](size_t bytes) {
    return scratch(bytes, profiler::MemoryCategory::Tensor, "data-dependent op output");
  };
  return run_dynamic(ctx, node, inputs);
}

void CudaBackend::run_matmul_epilogue(const engine::CompiledKernels& kernels, uint32_t group,
                                      const engine::FusedGroup& fused,
                                      std::span<const engine::TensorValue> inputs,
                                      std::span<const engine::TensorValue> outputs,
                                      const std::function<void()>& unfused) {
  const std::optional<LtEpilogue> lt = fused.epilogue ? lt_epilogue(*fused.epilogue) : std::nullopt;
  const auto f32 = [](const engine::TensorValue& v) {
    return v.type.dtype == ir::DType::Float32 && !v.conj;
  };
  if (!lt || outputs.size() != 1 || inputs.size() < 2 || !f32(outputs[0]) || !f32(inputs[0]) ||
      !f32(inputs[1]) ||
      (lt->bias && (lt->bias_input >= inputs.size() ||
                    !engine::is_contiguous(inputs[lt->bias_input].type.shape,
                                           inputs[lt->bias_input].strides)))) {
    return unfused();
  }
  DeviceGuard guard(device_);
  State& st = *state_;
  use(inputs);
  use(outputs);
  const void* bias = lt->bias ? inputs[lt->bias_input].raw() : nullptr;
  std::shared_ptr<engine::Buffer> held;  // a capture's own workspace
  void* workspace = nullptr;             // taken on the first fused run only
  const auto run_fused = [&] {
    if (workspace == nullptr) workspace = matmul_workspace(held);
    return st.matmul.run_epilogue(inputs[0], inputs[1], outputs[0], precision_, stream(), workspace,
                                  st.workspace_bytes, *lt, bias);
  };
  const engine::TensorValue& a = inputs[0];
  const engine::TensorValue& b = inputs[1];
  const std::string problem =
      epilogue_problem(fused.epilogue->text(), a.type.shape, a.strides, b.type.shape, b.strides,
                       outputs[0].type.shape, static_cast<int>(precision_));
  const auto seconds = [this](const std::function<void()>& f) {
    synchronize();
    const auto t0 = std::chrono::steady_clock::now();
    f();
    synchronize();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  // A recording cannot be timed: it records the unfused pair (what the plan runs without
  // epilogues) and a later uncaptured run decides.
  st.epilogues.run(st.epilogues.key(problem), problem, run_fused, unfused, seconds, !capture_);
}

void CudaBackend::fit_lt_layout(std::span<engine::TensorValue, 2> operands,
                                const ir::Shape& out_shape) {
  auto fits = [&] {
    std::string why_not;
    return describe_lt_matmul(operands[0].type.shape, operands[0].strides, operands[1].type.shape,
                              operands[1].strides, out_shape, why_not)
        .has_value();
  };
  if (fits()) return;
  // A matrix neither row- nor column-major (a permuted or doubly strided view): a contiguous
  // copy. Then batch dims that still do not collapse to one stride against the output's (a
  // broadcast batch dim between two real ones): the operand broadcast to the whole batch.
  CudaContext ctx = context();
  for (engine::TensorValue& v : operands) {
    if (!v.is_contiguous()) v = movement::dense(ctx, v, v.type.dtype);
  }
  if (fits()) return;
  const size_t matrix_dims =
      (operands[0].type.shape.size() > 1 ? 1 : 0) + (operands[1].type.shape.size() > 1 ? 1 : 0);
  const size_t batch_dims = out_shape.size() - matrix_dims;
  for (engine::TensorValue& v : operands) {
    const size_t rank = v.type.shape.size();
    if (rank < 2) continue;
    ir::Shape full(out_shape.begin(), out_shape.begin() + static_cast<ptrdiff_t>(batch_dims));
    full.push_back(v.type.shape[rank - 2]);
    full.push_back(v.type.shape[rank - 1]);
    if (full != v.type.shape) v = movement::dense(ctx, v, v.type.dtype, &full);
  }
}

void CudaBackend::run(const ir::Node& node, std::span<const engine::TensorValue> inputs,
                      std::span<const engine::TensorValue> outputs) {
  DeviceGuard guard(device_);
  State& st = *state_;
  use(inputs);
  use(outputs);
  if (ir::op_info(node.op).kind == ir::OpKind::Matmul) {
    if (inputs.size() != 2 || outputs.size() != 1) {
      throw Error(ErrorCode::Internal, "matmul expects two inputs and one output");
    }
    // cuBLASLt multiplies operands of the output's dtype as stored: a conj view (complex) or
    // an operand of another dtype is first materialised in that dtype (movement's copy, which
    // conjugates and casts by the CPU's rules).
    CudaContext int_ctx = context();
    if (run_int_matmul(int_ctx, node, inputs, outputs)) return;  // cuBLASLt has no integers
    const ir::DType dtype = outputs[0].type.dtype;
    engine::TensorValue operands[2] = {inputs[0], inputs[1]};
    for (engine::TensorValue& v : operands) {
      if (v.conj || v.type.dtype != dtype) {
        CudaContext ctx = context();
        v = movement::dense(ctx, v, dtype);
      }
    }
    fit_lt_layout(operands, outputs[0].type.shape);
    std::shared_ptr<engine::Buffer> held;  // a capture's own workspace
    void* workspace = matmul_workspace(held);
    st.matmul.run(operands[0], operands[1], outputs[0], precision_, stream(), workspace,
                  st.workspace_bytes);
    return;
  }
  // Scratch is tracked in the category of the family that asks for it: the library families'
  // is their workspace (cuDNN, cuFFT work areas, cuSOLVER), the kernels' their temporaries.
  profiler::MemoryCategory category = profiler::MemoryCategory::Scratch;
  const char* what = "kernel scratch";
  CudaContext ctx{device_,
                  st.arch,
                  st.sm_count,
                  stream(),
                  st.kernels,
                  st.families,
                  precision_,
                  [this, &category, &what](size_t bytes) { return scratch(bytes, category, what); },
                  st.programmatic_launch};
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
