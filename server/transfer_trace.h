// What a profile records of transfers, shared by the chunked and the shared-memory paths: an
// upload span with a content hash (so repeated transfers of the same data are visible) and the
// new tensor in the memory ledger; a fetch span with its bytes. Called on the device worker (a
// fetch from host memory may run on the event loop: `thread` says which).
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

#include "engine/exec/tensor_value.h"
#include "engine/profiler/memory_ledger.h"
#include "engine/profiler/profiler.h"

namespace tensord::server {

void trace_upload(const std::shared_ptr<profiler::Profiler>& prof, profiler::MemoryLedger& ledger,
                  const engine::TensorValue& value, const uint8_t* bytes, int64_t start);

void trace_fetch(profiler::Profiler& prof, uint64_t bytes, int64_t start,
                 uint32_t thread = profiler::kWorkerThread);

// Host staging (issue 7): bytes the daemon holds on the host while they move between a client
// and the device (a fetch's reply, inline input bytes waiting for the worker, a converted copy of
// an upload), tracked in the ledger as `staging` under `op` ("fetch", "upload") while the session
// records memory; an empty ticket otherwise. The caller keeps the ticket as long as the bytes.
profiler::BlockTicket track_staging(const std::shared_ptr<profiler::Profiler>& prof,
                                    profiler::MemoryLedger& ledger, uint64_t bytes,
                                    const void* address, std::string_view op, uint64_t request = 0,
                                    std::string_view file = {}, uint32_t line = 0);

}  // namespace tensord::server
