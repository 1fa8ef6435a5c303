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
  // Any thread: Backend::memory_stats is thread-safe.
  engine::DeviceMemoryStats memory_stats() const { return backend_->memory_stats(); }
  std::optional<cache::KernelCacheStats> own_kernel_cache_stats() const {
    return backend_->own_kernel_cache_stats();
  }

  uint64_t open_session();
  // Cancels the session's queued jobs; a job already running finishes.
  void close_session(uint64_t session);
  void submit(uint64_t session, std::unique_ptr<Job> job);
  // For the session's jobs submitted from now on (SessionQueue::set_float32_matmul_precision).
  void set_float32_matmul_precision(uint64_t session, engine::Float32MatmulPrecision precision);
  size_t queued(uint64_t session) const;
  size_t queued() const;

  // Cancels every queued job, lets the running one finish and joins the thread. Idempotent.
  void stop();

 private:
  // A job with the float32 matmul precision its session had when it was submitted.
  struct Queued {
    std::unique_ptr<Job> job;
    engine::Float32MatmulPrecision precision;
  };
  struct Session {
    std::deque<Queued> jobs;
    engine::Float32MatmulPrecision precision = engine::Float32MatmulPrecision::Highest;
  };
  using Cancelled = std::pair<std::unique_ptr<Job>, std::string>;

  void loop();
  bool idle_locked() const;  // nothing to run, complete or end, and not stopping
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
  // Closed sessions the backend has not been told of yet (Backend::end_session runs on the
  // worker thread, after any job of the session that was already running).
  std::vector<uint64_t> closed_;
  uint64_t next_session_ = 1;
  bool stopping_ = false;

  std::thread thread_;  // last: starts after everything above exists
};

}  // namespace tensord::scheduler
