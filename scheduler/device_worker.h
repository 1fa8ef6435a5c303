// One device: its backend, its engine and the one thread that runs every job for it.
// Internal to the scheduler; callers use Scheduler and SessionQueue.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "engine/exec/backend.h"
#include "engine/exec/engine.h"
#include "scheduler/job.h"

namespace tensord::scheduler {

class DeviceWorker {
 public:
  DeviceWorker(std::unique_ptr<engine::Backend> backend, engine::EngineOptions options);
  ~DeviceWorker();  // stop()
  DeviceWorker(const DeviceWorker&) = delete;
  DeviceWorker& operator=(const DeviceWorker&) = delete;

  const engine::DeviceInfo& info() const { return backend_->info(); }

  uint64_t open_session();
  // Cancels the session's queued jobs; a job already running finishes.
  void close_session(uint64_t session);
  void submit(uint64_t session, std::unique_ptr<Job> job);
  size_t queued(uint64_t session) const;
  size_t queued() const;

  // Cancels every queued job, lets the running one finish and joins the thread. Idempotent.
  void stop();

 private:
  struct Session {
    std::deque<std::unique_ptr<Job>> jobs;
  };
  using Cancelled = std::pair<std::unique_ptr<Job>, std::string>;

  void loop();
  bool idle_locked() const;  // nothing to run or complete, and not stopping
  // Moves the session's jobs to cancelled_; the caller holds mu_.
  void cancel_locked(Session& session, const std::string& reason);

  std::unique_ptr<engine::Backend> backend_;
  engine::Engine engine_;  // touched by the worker thread only

  mutable std::mutex mu_;
  std::condition_variable wake_;
  std::unordered_map<uint64_t, Session> sessions_;
  // Sessions with queued jobs in round-robin order: the worker takes one job from the front
  // session and moves it to the back, so a long queue cannot starve the others.
  std::deque<uint64_t> ready_;
  std::vector<Cancelled> cancelled_;  // to be completed by the worker
  uint64_t next_session_ = 1;
  bool stopping_ = false;

  std::thread thread_;  // last: starts after everything above exists
};

}  // namespace tensord::scheduler
