// Tensors inside the engine: a buffer owned by a backend plus a strided view of it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/ir/shape.h"
#include "engine/profiler/memory_ledger.h"

namespace tensord::engine {

// A device allocation. Resource type: backends subclass it and free the memory in the
// destructor; values share it through shared_ptr, so views keep their base alive.
class Buffer {
 public:
  Buffer(void* data, size_t bytes) : data_(data), bytes_(bytes) {}
  virtual ~Buffer() = default;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  void* data() const { return data_; }
  size_t bytes() const { return bytes_; }

  // Set when a session recording memory allocated it: the memory ledger's record of this block,
  // which records the free when the buffer goes.
  profiler::BlockTicket ticket;

 private:
  void* data_;
  size_t bytes_;
};

// A typed, strided window on a buffer. Strides and offset count elements; strides may be 0
// (broadcast) or negative (flip).
struct TensorValue {
  std::shared_ptr<Buffer> buffer;
  ir::TensorType type;
  std::vector<int64_t> strides;
  int64_t offset = 0;
  // Issue 4: the elements read as their complex conjugates (a conj view; engine/plan/layout.h).
  // Set only for the consumers that read it (plan::reads_conj): contiguous and matmul.
  bool conj = false;

  bool is_contiguous() const;
  size_t nbytes() const { return type.nbytes(); }
  // Address of element `offset` in the buffer, typed.
  template <typename T>
  T* data() const {
    return static_cast<T*>(buffer->data()) + offset;
  }
  void* raw() const { return static_cast<char*>(buffer->data()) + offset * itemsize(type.dtype); }

  static TensorValue contiguous(std::shared_ptr<Buffer> buffer, ir::TensorType type);
};

}  // namespace tensord::engine
