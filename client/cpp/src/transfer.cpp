#include "client/cpp/src/transfer.h"

#include <capnp/orphan.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <deque>
#include <utility>

#include "client/cpp/src/wire_graph.h"
#include "engine/ir/error.h"

namespace tensord::detail {
namespace {

// A call in flight and the end of the byte range it moves.
using InFlight = std::deque<std::pair<kj::Promise<void>, size_t>>;

// Waits for the oldest call when the window is full; returns the acknowledged end.
void make_room(SessionState& s, InFlight& in_flight, bool upload, size_t total) {
  while (in_flight.size() >= kChunksInFlight) {
    auto [oldest, end] = std::move(in_flight.front());
    in_flight.pop_front();
    oldest.wait(s.wait_scope());
    report_transfer(s, upload, end, total);
  }
}

}  // namespace

void report_transfer(SessionState& s, bool upload, uint64_t done, uint64_t total) {
  if (s.on_transfer && total > s.chunk_bytes) s.on_transfer(TransferProgress{upload, done, total});
}

Upload upload(SessionState& s, const ir::TensorType& type, std::span<const std::byte> bytes) {
  auto request = s.session.uploadRequest();
  set_text(ir::name(type.dtype), [&](unsigned n) { return request.initDtype(n); });
  auto shape = request.initShape(static_cast<unsigned>(type.shape.size()));
  for (unsigned i = 0; i < type.shape.size(); ++i) shape.set(i, type.shape[i]);
  wire::UploadSink::Client sink = request.send().getSink();

  report_transfer(s, true, 0, bytes.size());
  InFlight in_flight;
  for (size_t offset = 0; offset < bytes.size(); offset += s.chunk_bytes) {
    make_room(s, in_flight, true, bytes.size());
    size_t length = std::min<size_t>(s.chunk_bytes, bytes.size() - offset);
    auto write = sink.writeRequest();
    write.setOffset(offset);
    const std::byte* chunk = bytes.data() + offset;
    if (length % 8 == 0 && reinterpret_cast<uintptr_t>(chunk) % 8 == 0) {
      // The chunk becomes a segment of the message as it is (no copy): Cap'n Proto needs it
      // word-aligned and whole words, and alive until the message is written, which it is
      // (the caller's bytes outlive the upload).
      auto data = kj::arrayPtr(reinterpret_cast<const capnp::byte*>(chunk), length);
      write.adoptData(
          capnp::Orphanage::getForMessageContaining(wire::UploadSink::WriteParams::Builder(write))
              .referenceExternalData(data));
    } else {
      std::memcpy(write.initData(static_cast<unsigned>(length)).begin(), chunk, length);
    }
    in_flight.emplace_back(write.send().ignoreResult(), offset + length);
  }

  Upload result;
  result.tensor = sink.finishRequest().send().getTensor();
  auto writes = kj::heapArrayBuilder<kj::Promise<void>>(in_flight.size());
  for (auto& p : in_flight) writes.add(std::move(p.first));
  result.writes = kj::joinPromises(writes.finish());
  return result;
}

void read_into(SessionState& s, wire::Tensor::Client tensor, std::byte* out, size_t nbytes) {
  // Checked after the loop: an exception thrown inside a continuation would reach us as a
  // kj::Exception and lose its code.
  size_t wrong_size_reads = 0;
  report_transfer(s, false, 0, nbytes);
  InFlight in_flight;
  for (size_t offset = 0; offset < nbytes; offset += s.chunk_bytes) {
    make_room(s, in_flight, false, nbytes);
    size_t length = std::min<size_t>(s.chunk_bytes, nbytes - offset);
    auto read = tensor.readRequest();
    read.setOffset(offset);
    read.setLength(length);
    in_flight.emplace_back(
        read.send().then([out, &wrong_size_reads, offset, length](auto response) {
          auto data = response.getData();
          if (data.size() != length) {
            ++wrong_size_reads;
            return;
          }
          std::memcpy(out + offset, data.begin(), length);
        }),
        offset + length);
  }
  for (auto& [p, end] : in_flight) {
    p.wait(s.wait_scope());
    report_transfer(s, false, end, nbytes);
  }
  if (wrong_size_reads > 0) {
    throw Error(ErrorCode::Internal, "the daemon answered Tensor.read with a wrong byte count");
  }
}

std::vector<std::byte> read_all(SessionState& s, wire::Tensor::Client tensor, size_t nbytes) {
  std::vector<std::byte> out(nbytes);
  read_into(s, kj::mv(tensor), out.data(), nbytes);
  return out;
}

}  // namespace tensord::detail
