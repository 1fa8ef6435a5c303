#include "client/cpp/src/transfer.h"

#include <algorithm>
#include <cstring>
#include <deque>

#include "client/cpp/src/wire_graph.h"
#include "engine/ir/error.h"

namespace tensord::detail {
namespace {

// Waits for the oldest call when the window is full.
void make_room(SessionState& s, std::deque<kj::Promise<void>>& in_flight) {
  while (in_flight.size() >= kChunksInFlight) {
    kj::Promise<void> oldest = std::move(in_flight.front());
    in_flight.pop_front();
    oldest.wait(s.wait_scope());
  }
}

}  // namespace

Upload upload(SessionState& s, const ir::TensorType& type, std::span<const std::byte> bytes) {
  auto request = s.session.uploadRequest();
  set_text(ir::name(type.dtype), [&](unsigned n) { return request.initDtype(n); });
  auto shape = request.initShape(static_cast<unsigned>(type.shape.size()));
  for (unsigned i = 0; i < type.shape.size(); ++i) shape.set(i, type.shape[i]);
  wire::UploadSink::Client sink = request.send().getSink();

  std::deque<kj::Promise<void>> in_flight;
  for (size_t offset = 0; offset < bytes.size(); offset += s.chunk_bytes) {
    make_room(s, in_flight);
    size_t length = std::min<size_t>(s.chunk_bytes, bytes.size() - offset);
    auto write = sink.writeRequest();
    write.setOffset(offset);
    std::memcpy(write.initData(static_cast<unsigned>(length)).begin(), bytes.data() + offset,
                length);
    in_flight.push_back(write.send().ignoreResult());
  }

  Upload result;
  result.tensor = sink.finishRequest().send().getTensor();
  auto writes = kj::heapArrayBuilder<kj::Promise<void>>(in_flight.size());
  for (auto& p : in_flight) writes.add(std::move(p));
  result.writes = kj::joinPromises(writes.finish());
  return result;
}

std::vector<std::byte> read_all(SessionState& s, wire::Tensor::Client tensor, size_t nbytes) {
  std::vector<std::byte> out(nbytes);
  // Checked after the loop: an exception thrown inside a continuation would reach us as a
  // kj::Exception and lose its code.
  size_t wrong_size_reads = 0;
  std::deque<kj::Promise<void>> in_flight;
  for (size_t offset = 0; offset < nbytes; offset += s.chunk_bytes) {
    make_room(s, in_flight);
    size_t length = std::min<size_t>(s.chunk_bytes, nbytes - offset);
    auto read = tensor.readRequest();
    read.setOffset(offset);
    read.setLength(length);
    in_flight.push_back(read.send().then([&out, &wrong_size_reads, offset, length](auto response) {
      auto data = response.getData();
      if (data.size() != length) {
        ++wrong_size_reads;
        return;
      }
      std::memcpy(out.data() + offset, data.begin(), length);
    }));
  }
  for (auto& p : in_flight) p.wait(s.wait_scope());
  if (wrong_size_reads > 0) {
    throw Error(ErrorCode::Internal, "the daemon answered Tensor.read with a wrong byte count");
  }
  return out;
}

}  // namespace tensord::detail
