#include "engine/backends/cpu/host_buffer.h"

#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

#include "engine/ir/error.h"

namespace tensord::cpu {
namespace {

[[noreturn]] void throw_out_of_memory(size_t bytes) {
  throw Error(ErrorCode::OutOfMemory,
              "cannot allocate " + std::to_string(bytes) + " bytes on the CPU");
}

// Large buffers are fresh mappings whose first touch faults once per 4 KiB page: for a 64 MiB
// kernel output that took longer than the kernel (measured in bench/fusion). Aligned to 2 MiB
// and marked for transparent huge pages, they fault once per 2 MiB where the kernel allows it.
constexpr size_t kHugePage = size_t{2} << 20;

void* aligned_or_throw(size_t bytes) {
  const size_t a = bytes >= 4 * kHugePage ? kHugePage : HostBuffer::kAlignment;
  // aligned_alloc wants a multiple of the alignment; a 0-byte buffer still gets a real pointer.
  if (bytes > SIZE_MAX - a) throw_out_of_memory(bytes);
  size_t rounded = bytes == 0 ? a : (bytes + a - 1) / a * a;
  void* p = std::aligned_alloc(a, rounded);
  if (p == nullptr) throw_out_of_memory(bytes);
  if (a == kHugePage) madvise(p, rounded, MADV_HUGEPAGE);  // advice only: failure is harmless
#ifdef TENSORD_POISON_HOST_BLOCKS
  std::memset(p, 0xff, bytes);  // as HostBlockCache::allocate does in the sanitizer build
#endif
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
