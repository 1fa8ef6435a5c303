#include "server/transfer_trace.h"

#include "engine/profiler/record.h"

namespace tensord::server {

void trace_upload(const std::shared_ptr<profiler::Profiler>& prof, profiler::MemoryLedger& ledger,
                  const engine::TensorValue& value, const uint8_t* bytes, int64_t start) {
  size_t n = value.nbytes();
  if (prof->tracing()) {
    profiler::Record r;
    r.stage = static_cast<uint8_t>(profiler::Stage::Upload);
    r.thread = profiler::kWorkerThread;
    r.start_ns = start;
    r.dur_ns = prof->now() - start;
    r.bytes = n;
    r.hash = profiler::content_hash(bytes, n);
    prof->add(r);
  }
  if (prof->recording_memory()) {
    profiler::AllocSite site;
    site.profiler = prof;
    site.op = "upload";
    site.address = reinterpret_cast<uintptr_t>(value.buffer->data());
    value.buffer->ticket = ledger.track(value.buffer->bytes(), site);
  }
}

void trace_fetch(profiler::Profiler& prof, uint64_t bytes, int64_t start, uint32_t thread) {
  profiler::Record r;
  r.stage = static_cast<uint8_t>(profiler::Stage::Fetch);
  r.thread = thread;
  r.start_ns = start;
  r.dur_ns = prof.now() - start;
  r.bytes = bytes;
  prof.add(r);
}

profiler::BlockTicket track_staging(const std::shared_ptr<profiler::Profiler>& prof,
                                    profiler::MemoryLedger& ledger, uint64_t bytes,
                                    const void* address, std::string_view op, uint64_t request,
                                    std::string_view file, uint32_t line) {
  if (!prof || !prof->recording_memory() || bytes == 0) return {};
  profiler::AllocSite site;
  site.profiler = prof;
  site.request = request;
  site.op = op;
  site.file = file;
  site.line = line;
  site.category = profiler::MemoryCategory::Staging;
  site.address = reinterpret_cast<uintptr_t>(address);
  return ledger.track(bytes, site);
}

}  // namespace tensord::server
