#include "server/activity.h"

#include <utility>

namespace tensord::server {

void ActivityLog::finished(Run run) {
  if (run.error.empty()) {
    ++runs_ok_;
  } else {
    ++failed_runs_;
  }
  run_time_ += run.duration;
  wait_time_ += run.waited;
  if (runs_.size() == kMaxRuns) runs_.pop_front();
  runs_.push_back(std::move(run));
}

}  // namespace tensord::server
