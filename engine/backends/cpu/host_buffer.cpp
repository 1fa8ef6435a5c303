#include "engine/backends/cpu/host_buffer.h"

#include <cstdint>
#include <cstdlib>
#include <new>
#include <string>

#include "engine/ir/error.h"

namespace tensord::cpu {
namespace {

[[noreturn]] void throw_out_of_memory(size_t bytes) {
  throw Error(ErrorCode::OutOfMemory,
              "cannot allocate " + std::to_string(bytes) + " bytes on the CPU");
}

void* aligned_or_throw(size_t bytes) {
  constexpr size_t a = HostBuffer::kAlignment;
  // aligned_alloc wants a multiple of the alignment; a 0-byte buffer still gets a real pointer.
  if (bytes > SIZE_MAX - a) throw_out_of_memory(bytes);
  size_t rounded = bytes == 0 ? a : (bytes + a - 1) / a * a;
  void* p = std::aligned_alloc(a, rounded);
  if (p == nullptr) throw_out_of_memory(bytes);
  return p;
}

}  // namespace

HostBuffer::HostBuffer(size_t bytes) : Buffer(aligned_or_throw(bytes), bytes) {}

HostBuffer::~HostBuffer() {
  std::free(data());
}

std::shared_ptr<engine::Buffer> allocate_host(size_t bytes) {
  try {
    return std::make_shared<HostBuffer>(bytes);
  } catch (const std::bad_alloc&) {
    throw_out_of_memory(bytes);
  }
}

engine::TensorValue allocate_value(const ir::TensorType& type) {
  engine::TensorValue v;
  v.buffer = allocate_host(type.nbytes());
  v.type = type;
  v.strides = ir::contiguous_strides(type.shape);
  v.offset = 0;
  return v;
}

}  // namespace tensord::cpu
