// What a profile records of transfers, shared by the chunked and the shared-memory paths: an
// upload span with a content hash (so repeated transfers of the same data are visible) and the
// new tensor in the memory ledger; a fetch span with its bytes. Called on the device worker.
#pragma once

#include <cstdint>
#include <memory>

#include "engine/exec/tensor_value.h"
#include "engine/profiler/memory_ledger.h"
#include "engine/profiler/profiler.h"

namespace tensord::server {

void trace_upload(const std::shared_ptr<profiler::Profiler>& prof, profiler::MemoryLedger& ledger,
                  const engine::TensorValue& value, const uint8_t* bytes, int64_t start);

void trace_fetch(profiler::Profiler& prof, uint64_t bytes, int64_t start);

}  // namespace tensord::server
