// Kernel scratch: the temporaries a CPU kernel allocates for itself (converted or contiguous
// copies of its inputs, LAPACK work arrays, sort keys and permutations, FFT buffers, scatter
// accumulators). While the running step's session records memory, the backend names the step
// (Backend::set_step_site) and these go into the device's memory ledger in category `scratch`
// under the step's op and the user's line; otherwise they are plain allocations and cost one
// null check each (docs/profiler.md, "Categories").
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "engine/exec/tensor_value.h"
#include "engine/profiler/memory_ledger.h"

namespace tensord::cpu {

// Temporaries below this size are not tracked: index vectors of a tensor's rank, per-thread
// partials, tiles of a blocked loop. They come from malloc's per-thread free lists (no page is
// mapped for them) and all of them together stay within a few KiB per thread, while a record
// costs a locked insert and about 140 bytes of trace.
inline constexpr size_t kScratchMinBytes = size_t{64} << 10;

// Where a kernel's scratch is tracked: the device's ledger (CpuBackend::set_memory_ledger) and
// the running step's site (category scratch). Both null, or the ledger alone: not tracked.
struct ScratchSite {
  profiler::MemoryLedger* ledger = nullptr;
  const profiler::AllocSite* site = nullptr;

  bool tracking() const { return site != nullptr; }
  // The ledger's ticket for `bytes` at `address`, or an empty ticket when not tracking or the
  // block is small. Never throws: kernels call it inside OpenMP regions, and a failure to
  // record must not fail the kernel (the block then stays out of the books, freed or not).
  profiler::BlockTicket track(size_t bytes, const void* address) const noexcept;
};

// A fresh 64-byte aligned host buffer of `bytes`, tracked as scratch.
std::shared_ptr<engine::Buffer> scratch_buffer(const ScratchSite& where, size_t bytes);

// A fresh contiguous value of `type`, tracked as scratch (host_buffer.h's, tracked).
engine::TensorValue allocate_value(const ScratchSite& where, const ir::TensorType& type);

// A std::vector for a kernel's work array, tracked as scratch for its life. Sized once: a
// vector that grows after construction is tracked at its first size.
template <typename T>
class ScratchVector {
 public:
  ScratchVector(const ScratchSite& where, size_t n, const T& fill = T()) : v_(n, fill) {
    ticket_ = where.track(n * sizeof(T), v_.data());
  }
  ScratchVector(ScratchVector&&) noexcept = default;
  ScratchVector& operator=(ScratchVector&&) noexcept = default;

  T* data() { return v_.data(); }
  const T* data() const { return v_.data(); }
  size_t size() const { return v_.size(); }
  bool empty() const { return v_.empty(); }
  T& operator[](size_t i) { return v_[i]; }
  const T& operator[](size_t i) const { return v_[i]; }
  auto begin() { return v_.begin(); }
  auto end() { return v_.end(); }
  auto begin() const { return v_.begin(); }
  auto end() const { return v_.end(); }
  const std::vector<T>& vector() const { return v_; }

 private:
  std::vector<T> v_;
  // After v_: destroyed first, so the free is recorded before the memory goes.
  profiler::BlockTicket ticket_;
};

}  // namespace tensord::cpu
