// Where the caching allocator gets its segments from: cudaMalloc/cudaFree in production
// (cuda_resources.h), host memory for the allocator's own tests on machines without a GPU.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace tensord::cuda {

// A stream as the allocator sees it: an opaque id (a cudaStream_t's value in production).
using StreamId = uintptr_t;

class SegmentSource {
 public:
  virtual ~SegmentSource() = default;

  // A fresh segment of exactly `bytes`, or nullptr when the device is out of memory (any other
  // failure throws tensord::Error).
  virtual void* allocate(size_t bytes) = 0;
  virtual void release(void* ptr, size_t bytes) = 0;
  // Free and total memory of the device, for out-of-memory messages.
  virtual size_t free_bytes() = 0;
  virtual size_t total_bytes() = 0;
  // "CUDA device 0 (NVIDIA H100)", "host memory": names the memory in error messages.
  virtual std::string describe() = 0;
};

// Completion of work queued on streams. A block used by a stream other than the one it was
// allocated on returns to the pool only once an event recorded on that stream has completed
// (PyTorch's record_stream rule): until then the other stream may still read or write it.
class StreamEvents {
 public:
  virtual ~StreamEvents() = default;

  using EventId = uint64_t;
  virtual EventId record(StreamId stream) = 0;
  virtual bool query(EventId event) = 0;        // completed?
  virtual void synchronize(EventId event) = 0;  // waits for it
  virtual void destroy(EventId event) = 0;
};

// Host memory with a capacity: the segment source of the allocator's tests without a GPU, and
// of anything that wants the allocator's bookkeeping over host memory. Segments are 512-byte
// aligned like cudaMalloc's (at least 256).
class HostSegmentSource final : public SegmentSource {
 public:
  explicit HostSegmentSource(size_t capacity) : capacity_(capacity) {}
  ~HostSegmentSource() override;

  void* allocate(size_t bytes) override;
  void release(void* ptr, size_t bytes) override;
  size_t free_bytes() override { return capacity_ - in_use_; }
  size_t total_bytes() override { return capacity_; }
  std::string describe() override { return "host memory"; }

  size_t segments() const { return segments_; }
  uint64_t allocate_calls() const { return allocate_calls_; }

 private:
  size_t capacity_;
  size_t in_use_ = 0;
  size_t segments_ = 0;
  uint64_t allocate_calls_ = 0;
};

}  // namespace tensord::cuda
