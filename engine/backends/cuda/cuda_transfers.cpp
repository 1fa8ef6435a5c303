// Uploads and downloads: chunked through the pinned staging buffers on the backend's copy
// stream (staging_pipeline.h orders the steps), so that the host's memcpy of one chunk
// overlaps the DMA of another, and a session's transfer does not queue behind its kernels on
// other buffers. The copy stream first waits for the stream that last used the device buffer:
// a fresh block may still be read by work queued on its stream, and a download's source is
// written by its session's kernels. Both calls return when every DMA is over, so the buffer's
// stream record needs no change. Device-to-device copies (copy()) never come here.
// Host memory registered with pin_host_memory (a client's shared transfer buffer, which the
// daemon maps once and reuses) skips the staging: one DMA straight from or to it.
#include <cstring>
#include <string>

#include "engine/backends/cuda/caching_allocator.h"
#include "engine/backends/cuda/cuda_backend.h"
#include "engine/backends/cuda/cuda_check.h"
#include "engine/backends/cuda/cuda_resources.h"
#include "engine/backends/cuda/session_streams.h"
#include "engine/backends/cuda/staging_pipeline.h"
#include "engine/ir/error.h"

namespace tensord::cuda {
namespace {

// Below this, the staging copy costs little and registering memory is not worth its cost.
constexpr size_t kDirectTransferBytes = size_t{1} << 20;

// Whether [p, p + n) is host memory the device can DMA (registered or cudaHostAlloc'd). Only
// large transfers ask: a pointer query costs about a microsecond.
bool page_locked(const void* p, size_t n) {
  if (n < kDirectTransferBytes) return false;
  for (const char* at : {static_cast<const char*>(p), static_cast<const char*>(p) + n - 1}) {
    cudaPointerAttributes a{};
    if (cudaPointerGetAttributes(&a, at) != cudaSuccess) {
      cudaGetLastError();  // not sticky: clear it for the next call's check
      return false;
    }
    if (a.type != cudaMemoryTypeHost) return false;
  }
  return true;
}

// One DMA on `copy` and a wait for it, when the host side is page-locked; false to stage.
bool dma_if_page_locked(void* dst, const void* src, size_t n, const void* host, cudaMemcpyKind kind,
                        cudaStream_t copy) {
  if (!page_locked(host, n)) return false;
  check(cudaMemcpyAsync(dst, src, n, kind, copy), "cudaMemcpyAsync (page-locked host)");
  check(cudaStreamSynchronize(copy), "cudaStreamSynchronize (page-locked host)");
  return true;
}

}  // namespace

std::shared_ptr<void> CudaBackend::pin_host_memory(void* data, size_t bytes, bool read_only) {
  if (data == nullptr || bytes < kDirectTransferBytes) return nullptr;
  DeviceGuard guard(device_);
  const unsigned flags = cudaHostRegisterPortable | (read_only ? cudaHostRegisterReadOnly : 0);
  if (cudaHostRegister(data, bytes, flags) != cudaSuccess) {
    cudaGetLastError();  // refused (no read-only registration, locked-memory limits): staged
    return nullptr;
  }
  return std::shared_ptr<void>(data, [](void* p) { cudaHostUnregister(p); });
}

void CudaBackend::write(engine::Buffer& dst, size_t offset, const void* src, size_t n) {
  check_range(dst.bytes(), offset, n);
  if (n == 0) return;
  DeviceGuard guard(device_);
  cudaStream_t copy = copy_stream_after(dst);
  char* device = static_cast<char*>(dst.data()) + offset;
  const char* host = static_cast<const char*>(src);
  if (dma_if_page_locked(device, host, n, host, cudaMemcpyHostToDevice, copy)) return;
  Staging& staging = state_staging();
  StagingSteps steps;
  steps.wait = [&](size_t slot) {
    check(cudaEventSynchronize(staging.done[slot]->get()), "cudaEventSynchronize (staging)");
  };
  steps.host_copy = [&](size_t slot, size_t at, size_t len) {
    std::memcpy(staging.buffers[slot]->data(), host + at, len);
  };
  steps.dma = [&](size_t slot, size_t at, size_t len) {
    check(cudaMemcpyAsync(device + at, staging.buffers[slot]->data(), len, cudaMemcpyHostToDevice,
                          copy),
          "cudaMemcpyAsync (host to device)");
    check(cudaEventRecord(staging.done[slot]->get(), copy), "cudaEventRecord (staging)");
  };
  staged_upload(n, staging.bytes(), staging.buffers.size(), steps);
}

void CudaBackend::read(const engine::Buffer& src, size_t offset, void* dst, size_t n) {
  check_range(src.bytes(), offset, n);
  if (n == 0) return;
  DeviceGuard guard(device_);
  cudaStream_t copy = copy_stream_after(src);
  const char* device = static_cast<const char*>(src.data()) + offset;
  char* host = static_cast<char*>(dst);
  if (dma_if_page_locked(host, device, n, host, cudaMemcpyDeviceToHost, copy)) return;
  Staging& staging = state_staging();
  StagingSteps steps;
  steps.wait = [&](size_t slot) {
    check(cudaEventSynchronize(staging.done[slot]->get()), "cudaEventSynchronize (staging)");
  };
  steps.host_copy = [&](size_t slot, size_t at, size_t len) {
    std::memcpy(host + at, staging.buffers[slot]->data(), len);
  };
  steps.dma = [&](size_t slot, size_t at, size_t len) {
    check(cudaMemcpyAsync(staging.buffers[slot]->data(), device + at, len, cudaMemcpyDeviceToHost,
                          copy),
          "cudaMemcpyAsync (device to host)");
    check(cudaEventRecord(staging.done[slot]->get(), copy), "cudaEventRecord (staging)");
  };
  staged_download(n, staging.bytes(), staging.buffers.size(), steps);
}

}  // namespace tensord::cuda
