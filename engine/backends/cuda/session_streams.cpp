#include "engine/backends/cuda/session_streams.h"

#include <utility>

#include "engine/ir/error.h"

namespace tensord::cuda {

SessionStreams::SessionStreams(StreamId fallback, size_t max_streams, Create create,
                               Destroy destroy)
    : fallback_(fallback),
      max_streams_(max_streams),
      create_(std::move(create)),
      destroy_(std::move(destroy)),
      current_(fallback) {
  if (fallback == 0) throw Error(ErrorCode::Internal, "session streams: a null fallback stream");
  if (max_streams == 0) throw Error(ErrorCode::Internal, "session streams: max_streams is 0");
}

SessionStreams::~SessionStreams() {
  for (const Slot& slot : streams_) destroy_(slot.stream);
}

size_t SessionStreams::assign() {
  // An idle stream first: it may hold cached blocks already.
  for (size_t i = 0; i < streams_.size(); ++i) {
    if (streams_[i].users == 0) return i;
  }
  if (streams_.size() < max_streams_) {
    const StreamId stream = create_();
    if (stream == 0) throw Error(ErrorCode::Internal, "session streams: created a null stream");
    streams_.push_back(Slot{stream, 0});
    return streams_.size() - 1;
  }
  size_t best = 0;
  for (size_t i = 1; i < streams_.size(); ++i) {
    if (streams_[i].users < streams_[best].users) best = i;
  }
  return best;
}

StreamId SessionStreams::select(uint64_t session) {
  if (session == 0) return current_ = fallback_;
  auto it = by_session_.find(session);
  if (it == by_session_.end()) {
    const size_t slot = assign();  // may throw: nothing changed then
    ++streams_[slot].users;
    it = by_session_.emplace(session, slot).first;
  }
  return current_ = streams_[it->second].stream;
}

void SessionStreams::end(uint64_t session) {
  auto it = by_session_.find(session);
  if (it == by_session_.end()) return;
  Slot& slot = streams_[it->second];
  --slot.users;
  if (current_ == slot.stream && slot.users == 0) current_ = fallback_;
  by_session_.erase(it);
}

std::vector<StreamId> SessionStreams::all() const {
  std::vector<StreamId> out{fallback_};
  for (const Slot& slot : streams_) out.push_back(slot.stream);
  return out;
}

size_t SessionStreams::idle() const {
  size_t n = 0;
  for (const Slot& slot : streams_) n += slot.users == 0 ? 1 : 0;
  return n;
}

UseOrder use_on(StreamUse& use, StreamId stream) {
  UseOrder order;
  if (use.last != 0 && use.last != stream) order.wait_for = use.last;
  order.record = use.allocated != 0 && use.allocated != stream;
  use.last = stream;
  return order;
}

StreamId wait_before(const StreamUse& use, StreamId stream) {
  return use.last != 0 && use.last != stream ? use.last : 0;
}

}  // namespace tensord::cuda
