#include "engine/exec/background_compiler.h"

#include <utility>

namespace tensord::engine {

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
