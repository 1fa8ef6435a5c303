#include "engine/exec/running_plan.h"

namespace tensord::engine {
namespace {

// Per thread by nature: each device worker (or the thread an engine is lent to) runs one plan
// at a time, and a crash handler runs on the thread that crashed.
thread_local const std::string* running = nullptr;

}  // namespace

const std::string* running_plan_reproducer() noexcept {
  return running;
}

RunningPlan::RunningPlan(const std::string* reproducer) noexcept : previous_(running) {
  running = reproducer;
}

RunningPlan::~RunningPlan() {
  running = previous_;
}

}  // namespace tensord::engine
