// Host memory for large transfers, and transfer progress.
//
// A HostBuffer is a memfd mapped into this process. On a unix-socket connection the daemon maps
// the same memory (its file descriptor rides with the request), so a transfer copies the bytes
// once: uploads from the buffer into device memory, downloads from device memory into it. Over
// TCP the same calls stream the bytes in chunks with a few calls in flight.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <source_location>
#include <span>
#include <vector>

namespace tensord {

class Tensor;

class HostBuffer {
 public:
  // Throws tensord::Error(OutOfMemory) when the memory cannot be had.
  explicit HostBuffer(size_t nbytes);
  ~HostBuffer();
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;

  std::byte* data() const { return data_; }  // null when size() is 0
  size_t size() const { return size_; }
  // The memfd, sealed against shrinking and growing; owned by this buffer.
  int fd() const { return fd_; }

 private:
  int fd_ = -1;
  std::byte* data_ = nullptr;
  size_t size_ = 0;
};

// One step of a transfer: `done` of `total` bytes have reached the other side. An observer
// sees done == 0 first and done == total last.
struct TransferProgress {
  bool upload = false;
  uint64_t done = 0;
  uint64_t total = 0;
};
using TransferObserver = std::function<void(const TransferProgress&)>;

namespace detail {

// The bytes a sync point fetched (Tensor::to_vector): from the run's reply or chunked reads
// (owned), or written by the daemon into a pooled HostBuffer through shared memory (a large
// tensor on a unix socket: one copy instead of a reply, two socket copies and a fresh vector).
struct FetchedBytes {
  std::vector<std::byte> owned;
  std::shared_ptr<HostBuffer> shared;
  std::span<const std::byte> view() const {
    if (shared) return {shared->data(), shared->size()};
    return owned;
  }
};

}  // namespace detail

// All of `t`'s values in a new buffer (a sync point). Large tensors on a unix socket come
// through shared memory; otherwise in chunks.
std::shared_ptr<HostBuffer> fetch_buffer(
    const Tensor& t, std::source_location loc = std::source_location::current());

}  // namespace tensord
