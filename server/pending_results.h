// The results of a Function call before it ran: tensors of known types that the client's next
// calls can take as arguments at once (Cap'n Proto promise pipelining on CallOutputs). The call
// moves them on: queued, then filled with its outputs, or failed with its error.
#pragma once

#include <kj/exception.h>

#include <memory>
#include <vector>

#include "server/queued_outputs.h"
#include "server/session_core.h"
#include "server/tensor_impl.h"
#include "tensord.capnp.h"

namespace tensord::server {

class PendingResults {
 public:
  PendingResults(const std::shared_ptr<SessionCore>& session,
                 const std::vector<ir::TensorType>& types);
  // Results never filled fail as cancelled: the call went before it made them.
  ~PendingResults();
  PendingResults(const PendingResults&) = delete;
  PendingResults& operator=(const PendingResults&) = delete;

  // Where the call's job leaves its outputs for the jobs queued behind it.
  const std::shared_ptr<QueuedOutputs>& outputs() const { return outputs_; }
  // The results' capabilities, the same before and after the call ends.
  // (Non-const: Cap'n Proto copies clients from non-const references only.)
  std::vector<::Tensor::Client>& tensors() { return tensors_; }
  size_t size() const { return impls_.size(); }

  void queued();  // the call's job is on the session's queue
  void fill(size_t index, engine::TensorValue value, TensorImpl::Origin made_at);
  void fail(const kj::Exception& why);  // every result not filled yet

 private:
  std::shared_ptr<QueuedOutputs> outputs_ = std::make_shared<QueuedOutputs>();
  std::vector<::Tensor::Client> tensors_;
  std::vector<TensorImpl*> impls_;  // each kept alive by its capability in tensors_
};

}  // namespace tensord::server
