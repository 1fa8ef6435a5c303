// RAII owners of CUDA runtime objects the backend uses: the device's segment source
// (cudaMalloc), events on streams, a stream, an event, and pinned host staging memory.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "engine/backends/cuda/segment_source.h"

namespace tensord::cuda {

// Makes `device` current on the calling thread for the object's lifetime.
class DeviceGuard {
 public:
  explicit DeviceGuard(int device);
  ~DeviceGuard();
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int previous_ = 0;
};

// cudaMalloc/cudaFree on one device. cudaErrorMemoryAllocation is "out of memory" (nullptr);
// any other error throws.
class CudaSegmentSource final : public SegmentSource {
 public:
  CudaSegmentSource(int device, std::string name);
  void* allocate(size_t bytes) override;
  void release(void* ptr, size_t bytes) override;
  size_t free_bytes() override;
  size_t total_bytes() override;
  std::string describe() override { return description_; }

 private:
  int device_;
  std::string description_;
};

// Events from a free list, so that the allocator's frees do not create events each time.
class CudaStreamEvents final : public StreamEvents {
 public:
  explicit CudaStreamEvents(int device) : device_(device) {}
  ~CudaStreamEvents() override;
  EventId record(StreamId stream) override;
  bool query(EventId event) override;
  void synchronize(EventId event) override;
  void destroy(EventId event) override;

 private:
  int device_;
  std::vector<cudaEvent_t> idle_;
};

// A non-blocking stream of one device.
class Stream {
 public:
  explicit Stream(int device);
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  cudaStream_t get() const { return stream_; }
  StreamId id() const { return reinterpret_cast<StreamId>(stream_); }
  void synchronize() const;

 private:
  cudaStream_t stream_ = nullptr;
};

// An event without timing of one device: cross-stream waits and staging buffer hand-backs.
class Event {
 public:
  explicit Event(int device);
  ~Event();
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;

  cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

// Page-locked host memory (cudaHostAlloc): DMA-able, so cudaMemcpyAsync from and to it runs at
// full PCIe/NVLink speed and overlaps with kernels. Uploads and downloads go through it.
class PinnedBuffer {
 public:
  explicit PinnedBuffer(size_t bytes);
  ~PinnedBuffer();
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;

  char* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  char* data_ = nullptr;
  size_t size_ = 0;
};

// The staging buffers of uploads and downloads, each with the event of its last DMA
// (staging_pipeline.h). Throws Error(Internal) for fewer than 2 buffers or a size of 0.
struct Staging {
  Staging(int device, size_t bytes, size_t count);
  size_t bytes() const { return buffers.front()->size(); }
  std::vector<std::unique_ptr<PinnedBuffer>> buffers;
  std::vector<std::unique_ptr<Event>> done;  // recorded after each DMA from or to the buffer
};

}  // namespace tensord::cuda
