#include "server/upload_sink_impl.h"

#include <cstring>
#include <iterator>
#include <string>

#include "engine/ir/error.h"
#include "server/device_bytes.h"
#include "server/exceptions.h"
#include "server/tensor_impl.h"
#include "server/transfer_trace.h"
#include "server/wire_types.h"
#include "server/worker_call.h"

namespace tensord::server {
namespace {

std::string range(uint64_t begin, uint64_t end) {
  return "[" + std::to_string(begin) + ", " + std::to_string(end) + ")";
}

}  // namespace

UploadSinkImpl::UploadSinkImpl(std::shared_ptr<SessionCore> session, ir::TensorType type)
    : session_(std::move(session)),
      type_(std::move(type)),
      size_(session_->admit_upload(type_)),
      staging_(session_->daemon().staging->allocate(size_)),
      // Keyed by the sink, not its staging buffer: that goes back to the staging cache (and may
      // serve another upload) before this charge is released.
      charge_(session_->account(), this, size_, "upload") {
  if (session_->profiler()->recording_memory()) {
    profiler::AllocSite site;
    site.profiler = session_->profiler();
    site.op = "upload";
    site.category = profiler::MemoryCategory::Staging;
    site.address = reinterpret_cast<uintptr_t>(staging_->data());
    staging_ticket_ = session_->daemon().memory->track(size_, site);
  }
}

kj::Promise<void> UploadSinkImpl::write(WriteContext context) {
  return with_wire_errors([&]() -> kj::Promise<void> {
    if (finished_) throw Error(ErrorCode::InvalidGraph, "write after finish");
    auto params = context.getParams();
    uint64_t offset = params.getOffset();
    auto data = params.getData();
    uint64_t max_chunk = session_->config().max_chunk_bytes;
    if (data.size() > max_chunk) {
      throw Error(ErrorCode::InvalidGraph, "upload chunk of " + std::to_string(data.size()) +
                                               " bytes exceeds maxChunkBytes (" +
                                               std::to_string(max_chunk) + ")");
    }
    if (offset > size_ || data.size() > size_ - offset) {
      throw Error(ErrorCode::InvalidGraph, "upload chunk " + range(offset, offset + data.size()) +
                                               " runs past the end of " + ir::to_string(type_) +
                                               " (" + std::to_string(size_) + " bytes)");
    }
    if (data.size() == 0) return kj::READY_NOW;
    mark_written(offset, offset + data.size());
    auto* staging = static_cast<uint8_t*>(staging_->data());
    std::memcpy(staging + offset, data.begin(), data.size());
    if (type_.dtype == ir::DType::Bool) normalize_bools(staging + offset, data.size());
    return kj::READY_NOW;
  });
}

void UploadSinkImpl::mark_written(uint64_t begin, uint64_t end) {
  // The first range that ends after `begin` must start at or after `end`.
  auto next = written_.upper_bound(begin);
  if (next != written_.begin()) {
    auto prev = std::prev(next);
    if (prev->second > begin) {
      throw Error(ErrorCode::InvalidGraph, "upload chunk " + range(begin, end) +
                                               " overlaps bytes already written " +
                                               range(prev->first, prev->second));
    }
  }
  if (next != written_.end() && next->first < end) {
    throw Error(ErrorCode::InvalidGraph, "upload chunk " + range(begin, end) +
                                             " overlaps bytes already written " +
                                             range(next->first, next->second));
  }
  // Merge with neighbours so that a sequential upload keeps one range.
  uint64_t new_begin = begin, new_end = end;
  if (next != written_.begin()) {
    auto prev = std::prev(next);
    if (prev->second == begin) {
      new_begin = prev->first;
      written_.erase(prev);
    }
  }
  if (next != written_.end() && next->first == end) {
    new_end = next->second;
    written_.erase(next);
  }
  written_[new_begin] = new_end;
  written_bytes_ += end - begin;
}

kj::Promise<void> UploadSinkImpl::finish(FinishContext context) {
  return with_wire_errors([&]() -> kj::Promise<void> {
    if (finished_) throw Error(ErrorCode::InvalidGraph, "finish called twice");
    if (written_bytes_ != size_) {
      throw Error(ErrorCode::InvalidGraph,
                  "finish before the upload is complete: " + std::to_string(written_bytes_) +
                      " of " + std::to_string(size_) + " bytes written");
    }
    finished_ = true;
    context.allowCancellation();
    // The staging buffer moves to the job; the charge stays with this sink until the tensor
    // exists, so the usage never drops to zero in between.
    std::shared_ptr<engine::Buffer> staging = std::move(staging_);
    auto ticket = std::make_shared<profiler::BlockTicket>(std::move(staging_ticket_));
    std::shared_ptr<profiler::Profiler> prof;
    if (session_->profiler()->active()) prof = session_->profiler();
    return run_on_worker(session_->queue(),
                         [type = type_, staging, ticket, prof,
                          ledger = session_->daemon().memory](engine::Engine& engine) {
                           int64_t t = prof ? prof->now() : 0;
                           const auto* bytes = static_cast<const uint8_t*>(staging->data());
                           auto value = upload_device_bytes(engine.backend(), type, bytes);
                           if (prof) trace_upload(prof, *ledger, value, bytes, t);
                           return value;
                         })
        .then([this, context](kj::Own<engine::TensorValue> value) mutable {
          context.getResults().setTensor(
              TensorImpl::publish(session_, std::move(*value), TensorImpl::Origin::upload()));
          charge_ = Charge();
        });
  });
}

}  // namespace tensord::server
