#include "server/daemon_impl.h"

#include <string>
#include <string_view>

#include "engine/ir/error.h"
#include "server/device_wire.h"
#include "server/exceptions.h"
#include "server/session_core.h"
#include "server/session_impl.h"
#include "server/token.h"

namespace tensord::server {
namespace {

void fill_server_info(const DaemonState& state, ::ServerInfo::Builder info) {
  info.initVersion().setMajor(::PROTOCOL_MAJOR);
  info.getVersion().setMinor(::PROTOCOL_MINOR);
  info.setDaemonVersion(TENSORD_VERSION);
  const scheduler::Scheduler& scheduler = *state.scheduler;
  auto devices = info.initDevices(scheduler.device_count());
  for (size_t i = 0; i < scheduler.device_count(); ++i) {
    device_info_to_wire(scheduler.device_info(i), devices[i]);
  }
  info.setMaxChunkBytes(state.config.max_chunk_bytes);
  info.setMaxTensorBytes(state.config.max_tensor_bytes);
}

}  // namespace

kj::Promise<void> DaemonImpl::hello(HelloContext context) {
  return with_wire_errors([&]() -> kj::Promise<void> {
    auto params = context.getParams();
    auto version = params.getClientVersion();
    if (version.getMajor() != ::PROTOCOL_MAJOR) {
      throw Error(ErrorCode::Version,
                  "the client speaks protocol " + std::to_string(version.getMajor()) + "." +
                      std::to_string(version.getMinor()) + ", this daemon speaks " +
                      std::to_string(::PROTOCOL_MAJOR) + "." + std::to_string(::PROTOCOL_MINOR));
    }
    auto token = params.getToken();
    if (!state_->config.token.empty() &&
        !same_token(state_->config.token, std::string_view(token.cStr(), token.size()))) {
      state_->log.warn("refused a session: wrong or missing token");
      throw Error(ErrorCode::Unauthenticated, "wrong or missing token");
    }
    auto core = std::make_shared<SessionCore>(state_, params.getSessionName().cStr(),
                                              params.getClient().cStr(), peer_);
    auto results = context.getResults();
    results.setSession(kj::heap<SessionImpl>(std::move(core)));
    fill_server_info(*state_, results.initServer());
    return kj::READY_NOW;
  });
}

}  // namespace tensord::server
