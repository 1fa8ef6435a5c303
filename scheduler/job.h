// A unit of work for a device worker: one engine run, or anything else that must touch the
// device (reads of device memory, frees that must be ordered with kernels).
#pragma once

#include <exception>
#include <functional>
#include <memory>

#include "engine/exec/engine.h"

namespace tensord::scheduler {

// Both calls happen on the device's worker thread, `run` at most once and `done` exactly once:
// after `run` returned (error = nullptr) or threw (error = what it threw), or without `run`
// when the job was cancelled before it started (error = tensord::Error(Cancelled)). The job is
// destroyed on the worker thread too, right after `done`, except when it is cancelled after
// the scheduler shut down (see SessionQueue::submit).
class Job {
 public:
  virtual ~Job() = default;
  virtual void run(engine::Engine& engine) = 0;
  virtual void done(std::exception_ptr error) noexcept = 0;
};

// A job from two functions, for callers that need no state of their own between the calls.
std::unique_ptr<Job> make_job(std::function<void(engine::Engine&)> run,
                              std::function<void(std::exception_ptr)> done);

}  // namespace tensord::scheduler
