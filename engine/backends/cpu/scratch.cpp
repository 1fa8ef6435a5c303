#include "engine/backends/cpu/scratch.h"

#include <cstdint>

#include "engine/backends/cpu/host_buffer.h"

namespace tensord::cpu {

profiler::BlockTicket ScratchSite::track(size_t bytes, const void* address) const noexcept {
  if (site == nullptr || ledger == nullptr || bytes < kScratchMinBytes) [[likely]] {
    return {};
  }
  try {
    profiler::AllocSite s = *site;
    s.category = profiler::MemoryCategory::Scratch;
    s.address = reinterpret_cast<uintptr_t>(address);
    return ledger->track(bytes, s);
  } catch (...) {
    return {};
  }
}

std::shared_ptr<engine::Buffer> scratch_buffer(const ScratchSite& where, size_t bytes) {
  std::shared_ptr<engine::Buffer> buffer = allocate_host(bytes);
  buffer->ticket = where.track(bytes, buffer->data());
  return buffer;
}

engine::TensorValue allocate_value(const ScratchSite& where, const ir::TensorType& type) {
  engine::TensorValue v = allocate_value(type);
  v.buffer->ticket = where.track(v.buffer->bytes(), v.buffer->data());
  return v;
}

}  // namespace tensord::cpu
