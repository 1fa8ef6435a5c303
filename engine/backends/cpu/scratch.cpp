#include "engine/backends/cpu/scratch.h"

#include <cstdint>

#include "engine/backends/cpu/host_buffer.h"
#include "engine/ir/error.h"

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

namespace {

// allocate_host(bytes); while tracking, an out-of-memory error gets the ledger's report (what
// is live by category, session and line), as a tensor's allocation does (StepHook::allocate).
std::shared_ptr<engine::Buffer> allocate_reported(const ScratchSite& where, size_t bytes) {
  try {
    return allocate_host(bytes);
  } catch (const Error& e) {
    if (e.code() != ErrorCode::OutOfMemory || !where.tracking() || where.ledger == nullptr) throw;
    profiler::AllocSite s = *where.site;
    s.category = profiler::MemoryCategory::Scratch;
    throw Error(ErrorCode::OutOfMemory,
                e.message() + " (kernel scratch); " + where.ledger->out_of_memory(bytes, s).text());
  }
}

}  // namespace

std::shared_ptr<engine::Buffer> scratch_buffer(const ScratchSite& where, size_t bytes) {
  std::shared_ptr<engine::Buffer> buffer = allocate_reported(where, bytes);
  buffer->ticket = where.track(bytes, buffer->data());
  return buffer;
}

engine::TensorValue allocate_value(const ScratchSite& where, const ir::TensorType& type) {
  engine::TensorValue v;
  v.buffer = scratch_buffer(where, type.nbytes());
  v.type = type;
  v.strides = ir::contiguous_strides(type.shape);
  v.offset = 0;
  return v;
}

}  // namespace tensord::cpu
