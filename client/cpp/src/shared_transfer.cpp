#include "client/cpp/src/shared_transfer.h"

#include <cstring>

#include "client/cpp/src/wire_graph.h"

namespace tensord::detail {
namespace {

// Cap'n Proto's Server bases have no virtual destructor: kj::heap disposes of the exact type.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wnon-virtual-dtor"
// Offers the buffer's memfd with the capability; keeps the buffer alive while the daemon
// holds a reference.
class SharedMemoryServer final : public wire::SharedMemory::Server {
 public:
  explicit SharedMemoryServer(std::shared_ptr<const HostBuffer> buffer)
      : buffer_(std::move(buffer)) {}

  kj::Maybe<int> getFd() override { return buffer_->fd(); }

 private:
  std::shared_ptr<const HostBuffer> buffer_;
};
#pragma GCC diagnostic pop

}  // namespace

Upload upload_shared(SessionState& s, const ir::TensorType& type,
                     std::shared_ptr<const HostBuffer> buffer) {
  auto request = s.session.uploadSharedRequest();
  set_text(ir::name(type.dtype), [&](unsigned n) { return request.initDtype(n); });
  auto shape = request.initShape(static_cast<unsigned>(type.shape.size()));
  for (unsigned i = 0; i < type.shape.size(); ++i) shape.set(i, type.shape[i]);
  request.setMemory(kj::heap<SharedMemoryServer>(std::move(buffer)));
  report_transfer(s, true, 0, type.nbytes());
  auto promise = request.send();
  Upload result;
  result.tensor = promise.getTensor();
  result.writes = promise.ignoreResult();
  return result;
}

void read_shared(SessionState& s, wire::Tensor::Client tensor, std::shared_ptr<HostBuffer> buffer) {
  size_t total = buffer->size();
  auto request = tensor.readSharedRequest();
  request.setMemory(kj::heap<SharedMemoryServer>(std::move(buffer)));
  report_transfer(s, false, 0, total);
  request.send().wait(s.wait_scope());
  report_transfer(s, false, total, total);
}

Upload upload_leaf(SessionState& s, const TensorNode& leaf) {
  if (!s.passes_fds) return upload(s, leaf.type, leaf.host_bytes());
  std::shared_ptr<const HostBuffer> buffer = leaf.host_buffer;
  if (!buffer) {
    auto copy = s.host_buffers.acquire(leaf.host.size());
    std::memcpy(copy->data(), leaf.host.data(), leaf.host.size());
    buffer = std::move(copy);
  }
  return upload_shared(s, leaf.type, std::move(buffer));
}

}  // namespace tensord::detail
