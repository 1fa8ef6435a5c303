// CUDA graphs: a plan's launches recorded once on the current session's stream and replayed
// with one cudaGraphLaunch, on whichever session's stream replays it (the engine's recordings
// are shared by the device's sessions): a replay on another stream than the last one waits for
// that stream first, since both would use the recording's buffers. Recording runs in relaxed
// capture mode so that the caching allocator may still cudaMalloc a new segment; anything that
// needs the host mid-plan (a device value read back, a synchronization) invalidates the capture,
// and end_capture() reports it unusable.
#include "engine/backends/cuda/capture_pool.h"
#include "engine/backends/cuda/cuda_backend.h"
#include "engine/backends/cuda/cuda_check.h"
#include "engine/backends/cuda/cuda_resources.h"
#include "engine/ir/error.h"

namespace tensord::cuda {
namespace {

class CudaGraphRun final : public engine::CapturedRun {
 public:
  CudaGraphRun(cudaGraph_t graph, cudaGraphExec_t exec, std::shared_ptr<CapturePool> pool)
      : graph_(graph), exec_(exec), pool_(std::move(pool)) {}
  ~CudaGraphRun() override {
    cudaGraphExecDestroy(exec_);
    cudaGraphDestroy(graph_);
  }
  cudaGraphExec_t exec() const { return exec_; }
  StreamId last = 0;  // the stream of the last replay

 private:
  cudaGraph_t graph_;
  cudaGraphExec_t exec_;
  std::shared_ptr<CapturePool> pool_;  // the addresses the graph replays
};

}  // namespace

void CudaBackend::begin_capture() {
  if (capture_) throw Error(ErrorCode::Internal, "a CUDA graph capture is already running");
  DeviceGuard guard(device_);
  check(cudaStreamBeginCapture(stream(), cudaStreamCaptureModeRelaxed), "cudaStreamBeginCapture");
  CapturePool::TrackIdle track_idle;
  if (std::shared_ptr<profiler::MemoryLedger> ledger = memory_ledger()) {
    const uint64_t stream_id = reinterpret_cast<uintptr_t>(stream());
    track_idle = [ledger, stream_id](const engine::Buffer& buffer) {
      profiler::AllocSite site;
      site.device_owned = true;
      site.category = profiler::MemoryCategory::GraphPool;
      site.op = "cuda graph pool";
      site.address = reinterpret_cast<uintptr_t>(buffer.data());
      site.stream = stream_id;
      return ledger->track(buffer.bytes(), site);
    };
  }
  capture_ = std::make_shared<CapturePool>(std::move(track_idle));
}

std::unique_ptr<engine::CapturedRun> CudaBackend::end_capture() {
  DeviceGuard guard(device_);
  std::shared_ptr<CapturePool> pool = std::move(capture_);
  cudaGraph_t graph = nullptr;
  const cudaError_t ended = cudaStreamEndCapture(stream(), &graph);
  if (ended != cudaSuccess || graph == nullptr) {
    cudaGetLastError();  // an invalidated capture leaves its error behind: not ours to keep
    if (graph) cudaGraphDestroy(graph);
    return nullptr;
  }
  cudaGraphExec_t exec = nullptr;
  if (cudaGraphInstantiate(&exec, graph, 0) != cudaSuccess) {
    cudaGetLastError();
    cudaGraphDestroy(graph);
    return nullptr;
  }
  return std::make_unique<CudaGraphRun>(graph, exec, std::move(pool));
}

void CudaBackend::replay(engine::CapturedRun& run) {
  DeviceGuard guard(device_);
  auto& graph = static_cast<CudaGraphRun&>(run);
  const auto current = reinterpret_cast<StreamId>(stream());
  if (graph.last != 0 && graph.last != current) wait_for(graph.last);
  check(cudaGraphLaunch(graph.exec(), stream()), "cudaGraphLaunch");
  graph.last = current;
}

}  // namespace tensord::cuda
