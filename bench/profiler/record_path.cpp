// bench/profiler/record_path.cpp: what each part of the daemon's record path costs, in process
// (no daemon, no RPC), so that the end-to-end profile_overhead_chain figure can be taken apart.
// Figures are ns per op of a 1000-op chain on the worker thread: record_step_span is what the
// chain of bench/profiler/main.cpp records per op (one step span: a clock read and one append);
// record_alloc_free is an op that also allocates a block and frees the previous one (Alloc,
// FreeRequested, Free: the chain itself reuses its plan slots, 3 allocations per run); then the
// event loop's share, taking the records (kept encoded) into chunks. The cache is hot here, so
// these are lower bounds of what the daemon pays. The peer is the bare loop (no profiling):
// the absolute ns are what count. Prints JSON lines (bench/common/figure.h).
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string_view>
#include <vector>

#include "bench/common/figure.h"
#include "engine/profiler/compact.h"
#include "engine/profiler/memory_ledger.h"
#include "engine/profiler/profiler.h"

namespace {

using tensord::bench::median;
using tensord::bench::print_figure;
namespace prof = tensord::profiler;

constexpr int kOps = 1000;     // one chain, as bench/profiler/main.cpp runs it
constexpr int kRepeats = 101;  // chains timed; the median is reported
// A user's file name as the client records it (longer than std::string's inline buffer).
constexpr std::string_view kFile = "/home/user/project/examples/elementwise_chain.cpp";

double ns_per_op(const std::vector<double>& seconds) {
  return median(seconds) * 1e9 / kOps;
}

struct Chain {
  std::shared_ptr<prof::Profiler> profiler = std::make_shared<prof::Profiler>(1);
  std::shared_ptr<prof::MemoryLedger> ledger = std::make_shared<prof::MemoryLedger>();
  std::vector<double> bare, spans, memory, both, drain_encode;
  volatile uint64_t sink = 0;  // keeps the bare loop's work

  void start(bool memory_on) {
    prof::ProfileOptions o;
    o.trace = true;
    o.memory = memory_on;
    o.free_requested = true;
    o.capacity = 1 << 20;
    profiler->start(o);
  }

  // One chain: kOps steps, each a span and (with memory) an allocation that frees the previous.
  double run(bool trace, bool memory) {
    prof::BlockTicket previous;
    const uint32_t op = profiler->intern("mul");
    const uint32_t file = profiler->intern(kFile);
    auto t0 = std::chrono::steady_clock::now();
    int64_t start = trace ? profiler->now() : 0;
    for (int i = 0; i < kOps; ++i) {
      if (memory) {
        prof::AllocSite site;
        site.profiler = profiler;
        site.request = 1;
        site.op = "mul";
        site.file = kFile;
        site.line = 12;
        site.op_id = op;  // interned once per run, as the executor's StepHook does
        site.file_id = file;
        site.address = 0x1000 + 64 * static_cast<uint64_t>(i);
        prof::BlockTicket t = ledger->track(64, site);
        previous = std::move(t);  // frees the previous slot: FreeRequested + Free
      }
      if (trace) {
        prof::Record r;
        r.kind = prof::RecordKind::Span;
        r.stage = static_cast<uint8_t>(prof::Stage::Step);
        r.thread = prof::kWorkerThread;
        r.name = op;
        r.file = file;
        r.line = 12;
        r.request = 1;
        r.id = static_cast<uint64_t>(i);
        r.bytes = 192;
        r.start_ns = start;
        int64_t end = profiler->now();
        r.dur_ns = end - start;
        profiler->add(r);
        start = end;
      }
      sink = sink + static_cast<uint64_t>(i);
    }
    previous.reset();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }

  // The event loop's share: take what one chain recorded, already encoded, behind a chunk
  // header (what server/profile_stream.cpp sends).
  double drain() {
    auto t0 = std::chrono::steady_clock::now();
    while (profiler->drain_encoded(encoded, 8192)) {
      std::vector<uint8_t> chunk;
      prof::put_chunk_header(chunk, profiler->session(), encoded.dropped, encoded.first_string,
                             encoded.strings, encoded.records);
      chunk.insert(chunk.end(), encoded.body.begin(),
                   encoded.body.begin() + static_cast<std::ptrdiff_t>(encoded.body_size));
      sink = sink + chunk.size();
    }
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  prof::Profiler::Encoded encoded;
};

}  // namespace

int main() {
  Chain c;
  for (int rep = -5; rep < kRepeats; ++rep) {  // the first five warm up
    const bool keep = rep >= 0;
    c.profiler->stop();
    double t = c.run(false, false);
    if (keep) c.bare.push_back(t);
    c.start(false);
    t = c.run(true, false);
    c.drain();
    if (keep) c.spans.push_back(t);
    c.start(true);
    t = c.run(false, true);
    c.drain();
    if (keep) c.memory.push_back(t);
    c.start(true);
    t = c.run(true, true);
    double d = c.drain();
    if (keep) {
      c.both.push_back(t);
      c.drain_encode.push_back(d);
    }
  }
  const double bare = ns_per_op(c.bare);
  print_figure("record_step_span", ns_per_op(c.spans), "ns/op", "bare_loop", bare);
  print_figure("record_alloc_free", ns_per_op(c.memory), "ns/op", "bare_loop", bare);
  print_figure("record_span_alloc_free", ns_per_op(c.both), "ns/op", "bare_loop", bare);
  print_figure("record_drain_encode", ns_per_op(c.drain_encode), "ns/op", "bare_loop", bare);
  return 0;
}
