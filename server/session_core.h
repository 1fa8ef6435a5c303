// The state of one session, shared by its Session capability and by the tensors and upload
// sinks it made: a tensor may outlive the Session capability. When the last of them goes (a
// client that disconnects drops all of them at once) the session closes: its queued jobs are
// cancelled and the close is logged.
#pragma once

#include <atomic>

#include <cstdint>
#include <memory>
#include <string>

#include "engine/exec/compile_mode.h"
#include "engine/exec/run_profile.h"
#include "engine/profiler/profiler.h"
#include "scheduler/scheduler.h"
#include "server/accounting.h"
#include "server/daemon_state.h"
#include "server/shared_mapping.h"

namespace tensord::server {

class SessionCore {
 public:
  // `client`: where the session says it comes from (Daemon.hello; may be empty); `peer`: who
  // is at the other end of its connection, as the system says (ConnectionServer::describe).
  SessionCore(std::shared_ptr<DaemonState> daemon, std::string name, std::string client = {},
              std::string peer = {});
  ~SessionCore();
  SessionCore(const SessionCore&) = delete;
  SessionCore& operator=(const SessionCore&) = delete;

  DaemonState& daemon() { return *daemon_; }
  const DaemonConfig& config() const { return daemon_->config; }
  scheduler::SessionQueue& queue() { return queue_; }
  const std::shared_ptr<Account>& account() const { return account_; }
  // The bytes of an upload of `type`, once they fit the daemon's tensor size limit and this
  // session's memory limit (tensord::Error otherwise).
  uint64_t admit_upload(const ir::TensorType& type) const;
  const std::string& label() const { return label_; }  // "session 3 'notebook'" for logs

  uint64_t id() const { return id_; }
  // The session's profiler (issue 7): inactive until Session.profile starts it.
  const std::shared_ptr<profiler::Profiler>& profiler() const { return profiler_; }
  // What a run of request `request` is profiled under (only called while the profiler is on).
  engine::RunProfile run_profile(uint64_t request) const {
    return engine::RunProfile{profiler_, daemon_->memory, request};
  }
  // The running profile stream, kept here so that it flushes after its handle is dropped.
  std::shared_ptr<class ProfileStream> profile_stream;

  // Client memory this session's transfers mapped recently (server/shared_mapping.h).
  const std::shared_ptr<SharedMappingCache>& mappings() const { return mappings_; }

  const std::string& name() const { return name_; }      // as the client gave it, made printable
  const std::string& client() const { return client_; }  // likewise
  const std::string& peer() const { return peer_; }
  ActivityLog::Clock::time_point opened() const { return opened_; }
  // The end of the last run, or the opening when none ran yet.
  ActivityLog::Clock::time_point last_active() const { return last_active_; }

  uint64_t runs() const { return runs_; }
  uint64_t failed_runs() const { return failed_runs_; }
  // A run that ended: counted here and in the daemon's ActivityLog. `waited`: from `start` until
  // a device worker took it (zero when none did).
  void finished_run(ActivityLog::Clock::time_point start, ActivityLog::Clock::duration waited,
                    uint64_t nodes, std::string error);

  // Since when a run of this session has been on a device worker (the dashboard's "running"):
  // the worker stores the time (steady clock, ns) when it takes a run and 0 when the run ends;
  // the event loop reads it. Shared, so a run on the worker may outlive the session.
  const std::shared_ptr<std::atomic<int64_t>>& running_since() const { return running_since_; }

  // Session.setCompileMode; runs and explains use it.
  engine::CompileMode compile_mode() const { return compile_mode_; }
  void set_compile_mode(engine::CompileMode mode) { compile_mode_ = mode; }

 private:
  std::shared_ptr<DaemonState> daemon_;
  const uint64_t id_;
  std::string name_;
  std::string client_;
  std::string peer_;
  std::string label_;
  ActivityLog::Clock::time_point opened_ = ActivityLog::Clock::now();
  ActivityLog::Clock::time_point last_active_ = opened_;
  scheduler::SessionQueue queue_;
  std::shared_ptr<Account> account_;
  uint64_t runs_ = 0;
  uint64_t failed_runs_ = 0;
  std::shared_ptr<std::atomic<int64_t>> running_since_ = std::make_shared<std::atomic<int64_t>>(0);
  std::shared_ptr<profiler::Profiler> profiler_ = std::make_shared<profiler::Profiler>(id_);
  engine::CompileMode compile_mode_ = engine::CompileMode::Default;
  std::shared_ptr<SharedMappingCache> mappings_ = std::make_shared<SharedMappingCache>();
};

}  // namespace tensord::server
