// Session.profile on the daemon's side: a pump on the event loop that drains the session's
// profiler into chunks of the compact form and writes them to the client's TraceSink. The sink's
// `write` is a Cap'n Proto streaming call, so a slow client holds the pump back; records keep
// arriving meanwhile and, past the profiler's bound, are dropped and counted instead of queued.
#pragma once

#include <kj/async.h>
#include <kj/timer.h>

#include <cstdint>
#include <memory>

#include "engine/profiler/memory_ledger.h"
#include "engine/profiler/profiler.h"
#include "server/session_core.h"
#include "tensord.capnp.h"

namespace tensord::server {

class ProfileStream {
 public:
  ProfileStream(std::shared_ptr<profiler::Profiler> profiler, ::TraceSink::Client sink,
                kj::Timer& timer);
  ProfileStream(const ProfileStream&) = delete;
  ProfileStream& operator=(const ProfileStream&) = delete;

  // Stops recording; the pump sends what is pending, then calls the sink's `done`.
  void request_stop();
  // request_stop(), then resolves when `done` was delivered (or the pump failed).
  kj::Promise<void> stopped();
  bool running() const { return !finished_; }
  bool stopping() const { return stopping_; }
  uint64_t recorded() const { return recorded_; }
  uint64_t dropped() const { return profiler_->dropped(); }

 private:
  kj::Promise<void> pump();

  std::shared_ptr<profiler::Profiler> profiler_;
  ::TraceSink::Client sink_;
  kj::Timer& timer_;
  profiler::Profiler::Encoded pending_;  // reused: drain_encoded swaps buffers with the profiler
  bool stopping_ = false;
  bool finished_ = false;
  uint64_t recorded_ = 0;
  kj::ForkedPromise<void> done_;  // last: cancelled first when the stream goes
};

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wnon-virtual-dtor"
class ProfileHandleImpl final : public ::ProfileHandle::Server {
 public:
  ProfileHandleImpl(std::shared_ptr<SessionCore> session, std::shared_ptr<ProfileStream> stream)
      : session_(std::move(session)), stream_(std::move(stream)) {}
  ~ProfileHandleImpl() noexcept(false);  // dropping the handle stops the profile (flushing)

 protected:
  kj::Promise<void> stop(StopContext context) override;
  kj::Promise<void> snapshot(SnapshotContext context) override;

 private:
  std::shared_ptr<SessionCore> session_;
  std::shared_ptr<ProfileStream> stream_;
};
#pragma GCC diagnostic pop

using ProfileContext = capnp::CallContext<::Session::ProfileParams, ::Session::ProfileResults>;

// Session.profile: starts the session's profiler and its stream; returns the handle. A profile
// whose handle was dropped but that is still flushing is waited for first.
kj::Promise<void> start_profile(std::shared_ptr<SessionCore> session, ProfileContext context);

}  // namespace tensord::server
