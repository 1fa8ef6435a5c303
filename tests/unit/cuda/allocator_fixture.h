// The segment source the allocator tests run over: host memory in the unit binary, cudaMalloc
// in the gpu binary, so that the same rules are checked on a device.
#pragma once

#include <map>
#include <memory>
#include <vector>

#include "engine/backends/cuda/segment_source.h"

namespace tensord::cuda::test {

// A segment source that refuses segments past `capacity` bytes in use.
std::unique_ptr<SegmentSource> make_segment_source(size_t capacity);

// Events whose completion the test decides: stands in for streams whose work is still queued.
class ManualEvents final : public StreamEvents {
 public:
  EventId record(StreamId stream) override {
    recorded.push_back(stream);
    live[next] = false;
    return next++;
  }
  bool query(EventId e) override { return live.at(e); }
  void synchronize(EventId e) override {
    ++synchronized;
    live.at(e) = true;
  }
  void destroy(EventId e) override { live.erase(e); }
  void complete_all() {
    for (auto& [id, done] : live) done = true;
  }

  std::vector<StreamId> recorded;
  std::map<EventId, bool> live;
  EventId next = 1;
  int synchronized = 0;
};

}  // namespace tensord::cuda::test
