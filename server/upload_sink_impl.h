// The receiving end of a chunked upload. Chunks land in a host staging buffer (in any order,
// each byte exactly once); `finish` copies it to the device on the session's worker and
// returns the tensor. A sink dropped unfinished frees its buffer.
#pragma once

#include <cstdint>
#include <map>
#include <memory>

#include "engine/exec/tensor_value.h"
#include "engine/ir/shape.h"
#include "server/accounting.h"
#include "server/session_core.h"
#include "tensord.capnp.h"

namespace tensord::server {

// Cap'n Proto's Server bases have no virtual destructor: kj::heap disposes of the exact type.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wnon-virtual-dtor"
class UploadSinkImpl final : public ::UploadSink::Server {
 public:
  // Checks the size against the daemon's limit before allocating; throws tensord::Error.
  UploadSinkImpl(std::shared_ptr<SessionCore> session, ir::TensorType type);

 protected:
  kj::Promise<void> write(WriteContext context) override;
  kj::Promise<void> finish(FinishContext context) override;

 private:
  // Records [begin, end) as written; throws if it overlaps a range written before.
  void mark_written(uint64_t begin, uint64_t end);

  std::shared_ptr<SessionCore> session_;
  ir::TensorType type_;
  uint64_t size_;
  std::shared_ptr<engine::Buffer> staging_;  // from the daemon's staging cache; uninitialized
  Charge charge_;                            // the staging buffer counts as a live tensor
  profiler::BlockTicket staging_ticket_;     // the staging buffer in the memory ledger, if recorded
  std::map<uint64_t, uint64_t> written_;     // begin -> end, disjoint, adjacent ranges merged
  uint64_t written_bytes_ = 0;
  bool finished_ = false;
};
#pragma GCC diagnostic pop

}  // namespace tensord::server
