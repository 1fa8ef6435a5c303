// Which CUDA stream a session's device work goes to, and what a buffer used on one stream needs
// before another stream may touch it. Plain C++ over opaque stream ids (segment_source.h), so
// that the rules are tested without a GPU; cuda_backend.cpp supplies the CUDA calls.
//
// Sessions overlap on the device because each has its own stream: the device worker enqueues
// one session's kernels and goes on to the next session's job while they run. Streams are
// created on a session's first job and go back to an idle list when the session ends, for the
// next new session: never destroyed before the backend, because the caching allocator keys its
// cached blocks by stream id, and a new stream that got a destroyed one's handle value would
// inherit blocks without the stream order that makes their reuse safe. Past `max_streams`,
// new sessions share the created stream with the fewest sessions (correct, only not
// overlapped with each other).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <unordered_map>
#include <vector>

#include "engine/backends/cuda/segment_source.h"

namespace tensord::cuda {

class SessionStreams {
 public:
  using Create = std::function<StreamId()>;
  using Destroy = std::function<void(StreamId)>;

  // `fallback`: the stream of work outside any session (session 0), owned by the caller.
  // Throws Error(Internal) for a null fallback or max_streams == 0.
  SessionStreams(StreamId fallback, size_t max_streams, Create create, Destroy destroy);
  ~SessionStreams();  // destroys every stream it created (the caller synchronised them)
  SessionStreams(const SessionStreams&) = delete;
  SessionStreams& operator=(const SessionStreams&) = delete;

  // Makes `session`'s stream current (creating or assigning one on its first call) and
  // returns it. Session 0 gets the fallback stream.
  StreamId select(uint64_t session);
  StreamId current() const { return current_; }
  // The session's stream is released (idle once no other session shares it); if it was
  // current, the fallback becomes current. Unknown sessions and 0 are ignored.
  void end(uint64_t session);

  // Every stream: the fallback first, then the created ones (to synchronise them all).
  std::vector<StreamId> all() const;
  size_t created() const { return streams_.size(); }
  size_t idle() const;
  size_t sessions() const { return by_session_.size(); }

 private:
  struct Slot {
    StreamId stream = 0;
    size_t users = 0;  // sessions assigned to it
  };
  size_t assign();  // a slot for a new session

  StreamId fallback_;
  size_t max_streams_;
  Create create_;
  Destroy destroy_;
  std::vector<Slot> streams_;
  std::unordered_map<uint64_t, size_t> by_session_;  // session -> index in streams_
  StreamId current_;
};

// What the backend knows of one buffer's streams: the stream its block was allocated on and
// the stream whose queued work touched it last.
struct StreamUse {
  StreamId allocated = 0;
  StreamId last = 0;
};

// Using a buffer on `stream` (work enqueued there from now on): `wait_for`, if not 0, is the
// stream that `stream` must wait for first (an event recorded there now); `record` says the
// allocator must be told that `stream` uses the block (record_stream), so that its free waits
// for `stream` too. The buffer's last stream becomes `stream`.
struct UseOrder {
  StreamId wait_for = 0;
  bool record = false;
};
UseOrder use_on(StreamUse& use, StreamId stream);

// A use on `stream` that the host waits for before going on (a transfer through staging):
// only the wait, nothing recorded or changed, since the work is over when the caller returns.
StreamId wait_before(const StreamUse& use, StreamId stream);

}  // namespace tensord::cuda
