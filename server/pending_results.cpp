#include "server/pending_results.h"

#include <utility>

#include "engine/ir/error.h"
#include "server/exceptions.h"

namespace tensord::server {

PendingResults::PendingResults(const std::shared_ptr<SessionCore>& session,
                               const std::vector<ir::TensorType>& types) {
  for (size_t i = 0; i < types.size(); ++i) {
    auto impl = kj::heap<TensorImpl>(session, types[i], outputs_, i);
    impls_.push_back(impl.get());
    tensors_.push_back(session->daemon().tensors.add(kj::mv(impl)));
  }
}

PendingResults::~PendingResults() {
  bool unfilled = false;
  for (TensorImpl* impl : impls_) {
    unfilled |=
        impl->state() == TensorImpl::State::Queuing || impl->state() == TensorImpl::State::Queued;
  }
  if (!unfilled) return;
  fail(to_wire_exception(std::make_exception_ptr(
      Error(ErrorCode::Cancelled, "the call that makes this tensor was cancelled"))));
}

void PendingResults::queued() {
  for (TensorImpl* impl : impls_) impl->mark_queued();
}

void PendingResults::fill(size_t index, engine::TensorValue value, TensorImpl::Origin made_at) {
  impls_.at(index)->fill(std::move(value), std::move(made_at));
}

void PendingResults::fail(const kj::Exception& why) {
  for (TensorImpl* impl : impls_) impl->fail(why);
}

}  // namespace tensord::server
