// The Session capability: runs graphs, starts uploads, reports usage.
#pragma once

#include <memory>

#include "server/session_core.h"
#include "tensord.capnp.h"

namespace tensord::server {

// Cap'n Proto's Server bases have no virtual destructor: kj::heap disposes of the exact type.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wnon-virtual-dtor"
class SessionImpl final : public ::Session::Server {
 public:
  explicit SessionImpl(std::shared_ptr<SessionCore> core) : core_(std::move(core)) {}

 protected:
  kj::Promise<void> run(RunContext context) override;
  kj::Promise<void> upload(UploadContext context) override;
  kj::Promise<void> stats(StatsContext context) override;
  kj::Promise<void> profile(ProfileContext context) override;
  kj::Promise<void> uploadShared(UploadSharedContext context) override;
  kj::Promise<void> setCompileMode(SetCompileModeContext context) override;
  kj::Promise<void> explain(ExplainContext context) override;
  kj::Promise<void> memoryStats(MemoryStatsContext context) override;
  kj::Promise<void> setFloat32MatmulPrecision(SetFloat32MatmulPrecisionContext context) override;
  kj::Promise<void> function(FunctionContext context) override;

 private:
  std::shared_ptr<SessionCore> core_;
};
#pragma GCC diagnostic pop

}  // namespace tensord::server
