#include "server/session_impl.h"

#include "server/exceptions.h"
#include "server/profile_stream.h"
#include "server/run_graph.h"
#include "server/shared_transfer.h"
#include "server/upload_sink_impl.h"
#include "server/wire_types.h"

namespace tensord::server {

kj::Promise<void> SessionImpl::run(RunContext context) {
  context.allowCancellation();  // a client that hangs up or gives up frees its queue slot
  return with_wire_errors([&] { return run_graph(core_, context); });
}

kj::Promise<void> SessionImpl::upload(UploadContext context) {
  return with_wire_errors([&]() -> kj::Promise<void> {
    auto params = context.getParams();
    ir::TensorType type{dtype_from_wire(params.getDtype()), shape_from_wire(params.getShape())};
    context.getResults().setSink(kj::heap<UploadSinkImpl>(core_, std::move(type)));
    return kj::READY_NOW;
  });
}

kj::Promise<void> SessionImpl::stats(StatsContext context) {
  auto s = context.getResults().initStats();
  const Account& account = *core_->account();
  s.setLiveTensors(account.usage().tensors);
  s.setLiveBytes(account.usage().bytes);
  s.setRuns(core_->runs());
  s.setDaemonLiveTensors(account.daemon_usage().tensors);
  s.setDaemonLiveBytes(account.daemon_usage().bytes);
  return kj::READY_NOW;
}

kj::Promise<void> SessionImpl::uploadShared(UploadSharedContext context) {
  context.allowCancellation();
  return with_wire_errors([&]() -> kj::Promise<void> {
    auto params = context.getParams();
    ir::TensorType type{dtype_from_wire(params.getDtype()), shape_from_wire(params.getShape())};
    return upload_shared(core_, std::move(type), params.getMemory())
        .then([context](::Tensor::Client tensor) mutable {
          context.getResults().setTensor(kj::mv(tensor));
        });
  });
}

}  // namespace tensord::server

namespace tensord::server {

kj::Promise<void> SessionImpl::profile(ProfileContext context) {
  return with_wire_errors([&] { return start_profile(core_, context); });
}

}  // namespace tensord::server
