#include "server/profile_stream.h"

#include <chrono>
#include <cstring>
#include <vector>

#include "engine/ir/error.h"
#include "engine/profiler/compact.h"
#include "server/exceptions.h"
#include "server/holdings_wire.h"
#include "server/worker_call.h"

namespace tensord::server {
namespace {

// Records per chunk: about 20 bytes each in the compact form, so chunks stay well under a MiB.
constexpr size_t kChunkRecords = 8192;
// How long the pump sleeps when nothing is pending.
constexpr auto kFlushInterval = 10 * kj::MILLISECONDS;

}  // namespace

ProfileStream::ProfileStream(std::shared_ptr<profiler::Profiler> profiler, ::TraceSink::Client sink,
                             kj::Timer& timer)
    : profiler_(std::move(profiler)),
      sink_(kj::mv(sink)),
      timer_(timer),
      done_(pump()
                .catch_([this](kj::Exception&&) {
                  // The client went away or its sink failed: nobody reads the profile any more.
                  profiler_->stop();
                })
                .then([this] { finished_ = true; })
                .fork()) {}

kj::Promise<void> ProfileStream::pump() {
  // Yield first, so the constructor finishes before the loop touches members.
  return kj::evalLater([this]() -> kj::Promise<void> {
    if (profiler_->drain_encoded(pending_, kChunkRecords)) {
      std::vector<uint8_t> header;
      profiler::put_chunk_header(header, profiler_->session(), pending_.dropped,
                                 pending_.first_string, pending_.strings, pending_.records);
      recorded_ += pending_.records;
      auto write = sink_.writeRequest();
      // The header, then the records as the profiler keeps them (already in the compact form).
      kj::ArrayPtr<capnp::byte> chunk =
          write.initChunk(static_cast<capnp::uint>(header.size() + pending_.body_size));
      std::memcpy(chunk.begin(), header.data(), header.size());
      if (pending_.body_size != 0) {
        std::memcpy(chunk.begin() + header.size(), pending_.body.data(), pending_.body_size);
      }
      return write.send().then([this] { return pump(); });
    }
    if (stopping_) {
      auto done = sink_.doneRequest();
      done.setRecorded(recorded_);
      done.setDropped(profiler_->dropped());
      return done.send().ignoreResult();
    }
    return timer_.afterDelay(kFlushInterval).then([this] { return pump(); });
  });
}

void ProfileStream::request_stop() {
  stopping_ = true;
  profiler_->stop();
}

kj::Promise<void> ProfileStream::stopped() {
  request_stop();
  return done_.addBranch();
}

ProfileHandleImpl::~ProfileHandleImpl() noexcept(false) {
  stream_->request_stop();
}

namespace {

// The device records of the session's traced runs, which a GPU backend collects in batches
// (Backend::trace_flush): in the profile before it stops. Runs on the session's worker after
// its earlier jobs; a closed session has nothing left to wait for.
kj::Promise<void> flush_device_traces(SessionCore& session) {
  return run_on_worker(session.queue(),
                       [](engine::Engine& e) {
                         e.backend().trace_flush();
                         return true;
                       })
      .ignoreResult()
      .catch_([](kj::Exception&&) {});
}

}  // namespace

kj::Promise<void> ProfileHandleImpl::stop(StopContext context) {
  return flush_device_traces(*session_)
      .then([this] { return stream_->stopped(); })
      .then([this, context]() mutable {
        auto results = context.getResults();
        results.setRecorded(stream_->recorded());
        results.setDropped(stream_->dropped());
      });
}

kj::Promise<void> ProfileHandleImpl::snapshot(SnapshotContext context) {
  profiler::Pending blocks;
  std::vector<std::string> strings;  // a string table of its own: the chunk stands alone
  auto intern = [&](const std::string& s) -> uint32_t {
    if (s.empty()) return 0;
    for (size_t i = 0; i < strings.size(); ++i) {
      if (strings[i] == s) return static_cast<uint32_t>(i + 1);
    }
    strings.push_back(s);
    return static_cast<uint32_t>(strings.size());
  };
  // The device's segments (every session's), then this session's blocks: the client nests them
  // by address (profiler::memory_snapshot_of).
  uint64_t reserved = 0;
  for (const profiler::LiveSegment& seg : session_->daemon().memory->segments()) {
    profiler::Record r;
    r.kind = profiler::RecordKind::SegmentAlloc;
    r.flags = profiler::kExisting;
    r.stage = static_cast<uint8_t>(seg.category);
    r.address = seg.address;
    r.bytes = seg.bytes;
    r.stream = seg.stream;
    reserved += seg.bytes;
    r.value = reserved;
    blocks.records.push_back(r);
  }
  for (const profiler::LiveBlock& b :
       session_->daemon().memory->snapshot(session_->id(), /*with_device=*/true)) {
    profiler::Record r;
    r.kind = profiler::RecordKind::Alloc;
    // Flags older clients ignore (protocol 1.4): the block's state and owner.
    r.flags = static_cast<uint8_t>((b.pending_free ? profiler::kPendingFree : 0) |
                                   (b.device_owned ? profiler::kDeviceOwned : 0));
    r.stream = b.stream;
    r.stage = static_cast<uint8_t>(b.category);
    r.id = b.id;
    r.bytes = b.bytes;
    r.request = b.request;
    r.session = b.session;
    r.name = intern(b.op);
    r.file = intern(b.file);
    r.line = b.line;
    r.address = b.address;
    blocks.records.push_back(r);
  }
  blocks.first_string = 1;
  blocks.strings = std::move(strings);
  std::vector<uint8_t> chunk = profiler::encode_chunk(blocks, session_->id());
  context.getResults().setChunk(kj::arrayPtr(chunk.data(), chunk.size()));
  return kj::READY_NOW;
}

namespace {

void start_now(const std::shared_ptr<SessionCore>& session, ProfileContext& context) {
  auto params = context.getParams();
  auto options = params.getOptions();
  profiler::ProfileOptions o;
  o.trace = options.getTrace();
  o.memory = options.getMemory();
  o.capacity = options.getBufferRecords();
  o.free_requested = options.getFreeRequested();
  // A bound the daemon keeps whatever the client asks: pending records are kept encoded, about
  // 15-20 bytes each (at most 285), so 2^20 of them stay within tens of MiB.
  constexpr uint32_t kMaxRecords = 1 << 20;
  if (o.capacity == 0 || o.capacity > kMaxRecords) {
    throw Error(ErrorCode::InvalidGraph,
                "bufferRecords must be in [1, " + std::to_string(kMaxRecords) + "]");
  }
  if (session->daemon().timer == nullptr) {
    throw Error(ErrorCode::Internal, "the daemon has no timer for profile streams");
  }
  // What the session holds as it begins, read in the same event-loop turn as the start: the
  // client's memory timeline starts from these bytes (protocol 1.8).
  const Account& account = *session->account();
  auto results = context.getResults();
  results.setHeldBefore(account.usage().bytes);
  const std::vector<Holding> holdings = account.largest_holdings(3);
  write_holdings(results.initHeldBeforeBy(static_cast<unsigned>(holdings.size())), holdings);
  session->profiler()->start(o);
  // The device's segments go to every profile recording memory, those held now first; the
  // session's blocks held now are adopted by the profile (Alloc flagged kExisting).
  if (o.memory) session->daemon().memory->subscribe(session->profiler(), session->id());
  auto stream = std::make_shared<ProfileStream>(session->profiler(), params.getSink(),
                                                *session->daemon().timer);
  session->profile_stream = stream;
  results.setHandle(kj::heap<ProfileHandleImpl>(session, std::move(stream)));
}

}  // namespace

kj::Promise<void> start_profile(std::shared_ptr<SessionCore> session, ProfileContext context) {
  std::shared_ptr<ProfileStream> old = session->profile_stream;
  if (old && old->running()) {
    if (!old->stopping()) {
      throw Error(ErrorCode::Unsupported, "a profile of this session is already running");
    }
    return old->stopped().then(
        [session, context]() mutable { with_wire_errors([&] { start_now(session, context); }); });
  }
  start_now(session, context);
  return kj::READY_NOW;
}

}  // namespace tensord::server
