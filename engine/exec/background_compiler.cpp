#include "engine/exec/background_compiler.h"

#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <utility>

namespace tensord::engine {

namespace {

// Puts this thread, and the compiler processes it starts (which inherit it: Linux keeps the
// policy per thread), in SCHED_IDLE: any other runnable thread preempts it at once. With a
// nice value instead (+10, measured) the stand-in's 200 eager steps still waited for GCC at
// each wakeup, and a first result took twice eager's time on 2 cores; with SCHED_IDLE it takes
// eager's. The cost: on a CPU that runs work without pause the compile gets only the idle
// policy's small share, and the stand-in stays in use that long. Nice +10 where the policy
// cannot be set.
void lower_priority() {
  const auto self = static_cast<pid_t>(gettid());
  const sched_param none{};
  if (sched_setscheduler(self, SCHED_IDLE, &none) == 0) return;
  errno = 0;
  const int now = getpriority(PRIO_PROCESS, static_cast<id_t>(self));
  if (errno == 0) (void)setpriority(PRIO_PROCESS, static_cast<id_t>(self), std::min(now + 10, 19));
}

}  // namespace

BackgroundCompiler::~BackgroundCompiler() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    queue_.clear();
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

std::future<BackgroundCompiler::Kernels> BackgroundCompiler::submit(std::function<Kernels()> job) {
  std::packaged_task<Kernels()> task(std::move(job));
  std::future<Kernels> result = task.get_future();
  {
    std::lock_guard lock(mutex_);
    queue_.push_back(std::move(task));
    if (!thread_.joinable()) thread_ = std::thread([this] { work(); });
  }
  wake_.notify_one();
  return result;
}

void BackgroundCompiler::work() {
  lower_priority();
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (stopping_) return;
    std::packaged_task<Kernels()> task = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    task();  // a packaged task keeps what the job throws for its future
    lock.lock();
  }
}

}  // namespace tensord::engine
