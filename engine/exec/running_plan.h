// What a thread is running, for the daemon's crash handler (server/reproducers.h). A generated
// kernel that crashes takes the whole daemon down, and the graph it ran is the first thing its
// developer needs; a signal handler cannot build that file (it may not allocate), so the engine
// writes each fused plan's reproducer ahead, when the plan is built, and points the running
// thread at it while the plan runs.
#pragma once

#include <string>

namespace tensord::engine {

// The reproducer of the plan this thread is running, or null. Safe to call in a signal handler.
const std::string* running_plan_reproducer() noexcept;

// Points this thread at `reproducer` (may be null: a plan without one) while in scope.
class RunningPlan {
 public:
  explicit RunningPlan(const std::string* reproducer) noexcept;
  ~RunningPlan();
  RunningPlan(const RunningPlan&) = delete;
  RunningPlan& operator=(const RunningPlan&) = delete;

 private:
  const std::string* previous_;
};

}  // namespace tensord::engine
