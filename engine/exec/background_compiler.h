// One thread that compiles new plans' kernels while the device's worker runs those plans
// unfused (EngineOptions::compile_in_background): a notebook's first run of a new graph is not
// held up by the host compiler. Jobs run one at a time, in the order submitted, so a device
// never has more than one compiler running for it in the background. Destroying it drops the
// jobs not started (their futures report a broken promise) and waits for the one running.
// The thread runs at the engine's priority: lower ones starve waits for the kernels on a busy
// machine (docs/design-notes.md, "A new graph runs unfused while its kernels compile").
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <thread>

#include "engine/exec/backend.h"

namespace tensord::engine {

class BackgroundCompiler {
 public:
  using Kernels = std::shared_ptr<const CompiledKernels>;

  BackgroundCompiler() = default;  // the thread starts with the first job
  ~BackgroundCompiler();
  BackgroundCompiler(const BackgroundCompiler&) = delete;
  BackgroundCompiler& operator=(const BackgroundCompiler&) = delete;

  // Queues `job`; its result (or the exception it threw) arrives through the future.
  std::future<Kernels> submit(std::function<Kernels()> job);

 private:
  void work();

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::packaged_task<Kernels()>> queue_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace tensord::engine
