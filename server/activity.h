// What the daemon is doing right now, for the dashboard (server/dashboard.h): the live sessions
// and the last runs of all of them, with their time, size and outcome. Event-loop only, like
// the rest of DaemonState. Bounded: a busy daemon keeps the last kMaxRuns runs.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <string>

namespace tensord::server {

class SessionCore;

class ActivityLog {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr size_t kMaxRuns = 200;

  struct Run {
    uint64_t session = 0;
    std::string session_name;
    Clock::time_point start;
    Clock::duration duration{};  // arrival to results (or error)
    // Arrival until a device worker took it: reading the graph, resolving its inputs, and the
    // queue behind the device's other sessions (zero when it failed before reaching a worker).
    Clock::duration waited{};
    uint64_t nodes = 0;
    std::string error;  // empty: the run succeeded
  };

  ActivityLog() = default;
  ActivityLog(const ActivityLog&) = delete;
  ActivityLog& operator=(const ActivityLog&) = delete;

  Clock::time_point started() const { return started_; }

  // A session registers itself for its lifetime (SessionCore's constructor and destructor).
  void opened(const SessionCore& session, uint64_t id) { sessions_[id] = &session; }
  void closed(uint64_t id) { sessions_.erase(id); }
  const std::map<uint64_t, const SessionCore*>& sessions() const { return sessions_; }

  void finished(Run run);
  const std::deque<Run>& recent_runs() const { return runs_; }
  uint64_t runs() const { return runs_ok_; }  // succeeded, as SessionCore::runs()
  uint64_t failed_runs() const { return failed_runs_; }
  // Of every run that ended: the time from arrival to the end, and the part spent waiting.
  Clock::duration run_time() const { return run_time_; }
  Clock::duration wait_time() const { return wait_time_; }

 private:
  const Clock::time_point started_ = Clock::now();
  std::map<uint64_t, const SessionCore*> sessions_;
  std::deque<Run> runs_;
  uint64_t runs_ok_ = 0;
  uint64_t failed_runs_ = 0;
  Clock::duration run_time_{};
  Clock::duration wait_time_{};
};

// A duration as the dashboard and the metrics give it: seconds.
inline double seconds(ActivityLog::Clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

}  // namespace tensord::server
