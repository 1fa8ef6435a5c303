// Runs a function on a session's device worker and returns its result to the event loop as a
// promise. Results travel boxed (kj::Own<T>): one pointer crosses the threads, and GCC's
// -Wmaybe-uninitialized does not misfire on KJ's ExceptionOr<T> for class types T. The function
// runs on the worker thread with the device's engine; it must not touch RPC objects, so callers
// capture plain values (graphs, TensorValues, bytes) only.
#pragma once

#include <kj/async.h>

#include <exception>
#include <memory>
#include <type_traits>
#include <utility>

#include "engine/ir/error.h"
#include "scheduler/scheduler.h"
#include "server/exceptions.h"

namespace tensord::server {

template <typename T, typename F>
class WorkerCall final : public scheduler::Job {
 public:
  WorkerCall(F work, kj::Own<kj::CrossThreadPromiseFulfiller<kj::Own<T>>> fulfiller)
      : work_(std::move(work)), fulfiller_(kj::mv(fulfiller)) {}
  ~WorkerCall() noexcept override {}  // kj::Own's destructor is noexcept(false); Job's is not

  void run(engine::Engine& engine) override {
    // Nobody waits any more when the client cancelled the call or disconnected.
    if (!fulfiller_->isWaiting()) throw Error(ErrorCode::Cancelled, "the request was cancelled");
    result_ = kj::heap<T>(work_(engine));
  }

  void done(std::exception_ptr error) noexcept override {
    if (error) {
      fulfiller_->reject(to_wire_exception(error));
    } else {
      fulfiller_->fulfill(kj::mv(result_));
    }
  }

 private:
  F work_;
  kj::Own<kj::CrossThreadPromiseFulfiller<kj::Own<T>>> fulfiller_;
  kj::Own<T> result_;
};

// `work(engine::Engine&) -> T` runs after the session's earlier jobs. A failure rejects the
// promise with a wire exception; a closed session rejects it with Cancelled.
template <typename F, typename T = std::invoke_result_t<F&, engine::Engine&>>
kj::Promise<kj::Own<T>> run_on_worker(scheduler::SessionQueue& queue, F&& work) {
  auto paf = kj::newPromiseAndCrossThreadFulfiller<kj::Own<T>>();
  queue.submit(std::make_unique<WorkerCall<T, std::decay_t<F>>>(std::forward<F>(work),
                                                                kj::mv(paf.fulfiller)));
  return kj::mv(paf.promise);
}

// `work` run here, on the engine lent to this thread (scheduler::SessionQueue::
// borrow_idle_engine), with run_on_worker's outcome: a ready promise of its result or of its
// failure as a wire exception.
template <typename F, typename T = std::invoke_result_t<F&, engine::Engine&>>
kj::Promise<kj::Own<T>> run_on_lent_engine(const scheduler::LentEngine& lent, F& work) {
  try {
    return kj::heap<T>(work(lent.engine()));
  } catch (...) {
    return to_wire_exception(std::current_exception());
  }
}

}  // namespace tensord::server
