// fetch_buffer: a tensor's values into a HostBuffer, through shared memory where possible.
#include <cstring>

#include "client/cpp/src/errors.h"
#include "client/cpp/src/recorder.h"
#include "client/cpp/src/shared_transfer.h"
#include "client/cpp/src/sync.h"
#include "client/cpp/src/transfer.h"
#include "tensord/host_buffer.h"

namespace tensord {

std::shared_ptr<HostBuffer> fetch_buffer(const Tensor& t, std::source_location loc) {
  const auto& node = detail::TensorAccess::node(t, loc);
  detail::SessionState& s = *node->session;
  s.check_thread();
  if (node->state == detail::TensorNode::State::Host) {
    auto buffer = s.host_buffers.acquire(node->type.nbytes());
    auto bytes = node->host_bytes();
    if (!bytes.empty()) std::memcpy(buffer->data(), bytes.data(), bytes.size());
    return buffer;
  }
  detail::sync_point(s, {{node, false}}, loc);  // now materialized, its shape known
  auto buffer = s.host_buffers.acquire(node->type.nbytes());
  if (buffer->size() == 0) return buffer;
  try {
    if (s.passes_fds) {
      detail::read_shared(s, *node->remote, buffer);
    } else {
      detail::read_into(s, *node->remote, buffer->data(), buffer->size());
    }
  } catch (const kj::Exception& e) {
    throw detail::translate(e, nullptr, node->loc);
  }
  return buffer;
}

}  // namespace tensord
