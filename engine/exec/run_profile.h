// What a run is profiled under: the session's profiler and the device's memory ledger, passed
// down by the caller (the daemon's session) with each run. Null: not profiled.
#pragma once

#include <cstdint>
#include <memory>

#include "engine/profiler/memory_ledger.h"
#include "engine/profiler/profiler.h"

namespace tensord::engine {

struct RunProfile {
  std::shared_ptr<profiler::Profiler> profiler;    // the session's
  std::shared_ptr<profiler::MemoryLedger> ledger;  // the device's
  uint64_t request = 0;

  bool tracing() const { return profiler && profiler->tracing(); }
  bool memory() const { return ledger && profiler && profiler->recording_memory(); }
  bool active() const { return tracing() || memory(); }
};

}  // namespace tensord::engine
