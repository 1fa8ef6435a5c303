// Sync points: where recorded work goes to the daemon.
#pragma once

#include <cstddef>
#include <memory>
#include <source_location>
#include <vector>

#include "client/cpp/src/tensor_node.h"
#include "tensord/host_buffer.h"

namespace tensord::detail {

struct SyncRequest {
  std::shared_ptr<TensorNode> node;
  bool fetch;  // return its bytes
};

// Sends everything the requested tensors still need in ONE `run` call (none when the daemon
// holds them all already), with the outputs to fetch inline in its reply. Afterwards every
// requested tensor is materialized, and so is every other pending value of that graph that
// something outside it refers to, so later syncs never compute it again. Returns the bytes of
// each request with `fetch` set (none for the others): inline in the run's reply when small,
// else read after it, through shared memory where the connection passes file descriptors.
// Throws tensord::Error.
std::vector<FetchedBytes> sync_point(SessionState& s, const std::vector<SyncRequest>& requests,
                                     std::source_location loc);

}  // namespace tensord::detail
