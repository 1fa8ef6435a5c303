#include "server/tensor_impl.h"

#include <kj/debug.h>

#include <string>

#include "engine/ir/error.h"
#include "engine/profiler/record.h"
#include "server/device_bytes.h"
#include "server/exceptions.h"
#include "server/shared_transfer.h"
#include "server/transfer_trace.h"
#include "server/wire_types.h"
#include "server/worker_call.h"

namespace tensord::server {
namespace {

// Reads up to this size from host memory are copied on the event loop (a few microseconds).
constexpr uint64_t kEventLoopReadBytes = 64 << 10;

}  // namespace

std::string TensorImpl::Origin::text() const {
  if (file.empty()) return what.empty() ? std::string("unknown") : std::string(what);
  return profiler::source_site(file, line, what);
}

TensorImpl::TensorImpl(std::shared_ptr<SessionCore> session, engine::TensorValue value,
                       Origin made_at)
    : session_(std::move(session)),
      type_(value.type),
      value_(std::move(value)),
      made_at_(std::move(made_at)),
      charge_(session_->account(), value_.buffer.get(), value_.nbytes(), made_at_.text()) {}

TensorImpl::TensorImpl(std::shared_ptr<SessionCore> session, ir::TensorType type,
                       std::shared_ptr<const QueuedOutputs> outputs, size_t index)
    : session_(std::move(session)),
      state_(State::Queuing),
      type_(std::move(type)),
      queued_(std::move(outputs)),
      index_(index) {}

const kj::Exception& TensorImpl::failure() const {
  KJ_REQUIRE(failure_.has_value(), "the tensor did not fail");
  return *failure_;
}

QueuedInput TensorImpl::queued_input(std::string what) const {
  KJ_REQUIRE(state_ == State::Queued);
  return QueuedInput{queued_, index_, type_, std::move(what)};
}

kj::Promise<void> TensorImpl::changed() {
  auto paf = kj::newPromiseAndFulfiller<void>();
  waiters_.push_back(kj::mv(paf.fulfiller));
  return kj::mv(paf.promise);
}

void TensorImpl::set_state(State state) {
  state_ = state;
  for (auto& waiter : waiters_) waiter->fulfill();
  waiters_.clear();
}

void TensorImpl::mark_queued() {
  if (state_ == State::Queuing) set_state(State::Queued);
}

void TensorImpl::fill(engine::TensorValue value, Origin made_at) {
  if (state_ == State::Ready || state_ == State::Failed) return;
  value_ = std::move(value);
  type_ = value_.type;
  made_at_ = std::move(made_at);
  charge_ = Charge(session_->account(), value_.buffer.get(), value_.nbytes(), made_at_.text());
  queued_.reset();  // the values of the whole call: this tensor keeps only its own
  set_state(State::Ready);
}

void TensorImpl::fail(const kj::Exception& why) {
  if (state_ == State::Ready || state_ == State::Failed) return;
  failure_.emplace(why);
  queued_.reset();
  set_state(State::Failed);
}

kj::Maybe<kj::Promise<void>> TensorImpl::not_ready() {
  if (state_ == State::Ready) return nullptr;
  if (state_ == State::Failed) kj::throwFatalException(kj::cp(failure()));
  return changed();
}

::Tensor::Client TensorImpl::publish(std::shared_ptr<SessionCore> session,
                                     engine::TensorValue value, Origin made_at) {
  DaemonState& daemon = session->daemon();
  return daemon.tensors.add(
      kj::heap<TensorImpl>(std::move(session), std::move(value), std::move(made_at)));
}

kj::Promise<void> TensorImpl::info(InfoContext context) {
  // A pending result's type is known; a failed one's call failed, so this fails too.
  if (state_ == State::Failed) kj::throwFatalException(kj::cp(failure()));
  auto results = context.getResults();
  results.setDtype(std::string(ir::name(type_.dtype)));
  shape_to_wire(type_.shape, results.initShape(type_.shape.size()));
  return kj::READY_NOW;
}

kj::Promise<void> TensorImpl::read(ReadContext context) {
  KJ_IF_MAYBE (wait, not_ready()) {
    return wait->then([this, context]() mutable { return read(context); });
  }
  return with_wire_errors([&]() -> kj::Promise<void> {
    auto params = context.getParams();
    uint64_t offset = params.getOffset();
    uint64_t length = params.getLength();
    uint64_t size = value_.nbytes();
    uint64_t max_chunk = session_->config().max_chunk_bytes;
    if (length > max_chunk) {
      throw Error(ErrorCode::InvalidGraph, "read of " + std::to_string(length) +
                                               " bytes exceeds maxChunkBytes (" +
                                               std::to_string(max_chunk) + ")");
    }
    if (offset > size || length > size - offset) {
      throw Error(ErrorCode::InvalidGraph, "read of bytes [" + std::to_string(offset) + ", " +
                                               std::to_string(offset) + " + " +
                                               std::to_string(length) + ") of a " +
                                               std::to_string(size) + "-byte tensor");
    }
    if (length == 0) return kj::READY_NOW;
    uint8_t* out = context.getResults().initData(static_cast<unsigned>(length)).begin();
    // The reply holds the bytes on the host until it is sent: fetch staging, at the line that
    // made the tensor (no request: the read is not part of a run).
    profiler::BlockTicket staging =
        track_staging(session_->profiler(), *session_->daemon().memory, length, out, "fetch", 0,
                      made_at_.file, made_at_.line);
    std::shared_ptr<profiler::Profiler> prof;
    if (session_->profiler()->tracing()) prof = session_->profiler();
    // A small read of host memory is a memcpy shorter than the two thread wake-ups a turn on
    // the worker costs (and that turn would wait behind the session's queued runs).
    const auto& device = session_->daemon().scheduler->device_info(session_->queue().device());
    if (length <= kEventLoopReadBytes && in_host_memory(device)) {
      int64_t t = prof ? prof->now() : 0;
      read_host_bytes_into(value_, offset, out, length);
      if (prof) trace_fetch(*prof, length, t, profiler::kEventLoopThread);
      return kj::Promise<void>(kj::READY_NOW).attach(kj::mv(staging));
    }
    // Device memory is the worker's: it copies the range straight into the reply, in order with
    // the session's runs. Not cancellable, so the reply outlives the job writing into it.
    return run_on_worker(session_->queue(),
                         [value = value_, offset, length, out, prof](engine::Engine& engine) {
                           int64_t t = prof ? prof->now() : 0;
                           read_device_bytes_into(engine.backend(), value, offset, out, length);
                           if (prof) trace_fetch(*prof, length, t);
                           return true;
                         })
        .ignoreResult()
        .attach(kj::mv(staging));
  });
}

kj::Promise<void> TensorImpl::readShared(ReadSharedContext context) {
  context.allowCancellation();
  KJ_IF_MAYBE (wait, not_ready()) {
    return wait->then([this, context]() mutable { return readShared(context); });
  }
  return with_wire_errors(
      [&] { return read_shared(session_, value_, context.getParams().getMemory()); });
}

}  // namespace tensord::server
