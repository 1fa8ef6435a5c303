// One device: its backend, its engine and the one thread that runs every job for it.
// Internal to the scheduler; callers use Scheduler and SessionQueue.
//
// Time slicing: sessions take turns job by job, and a long run of one session also pauses
// between two of its steps once it has run for a time slice while another session has work
// queued; the worker then runs one queued job of each other session (a round, as the loop
// would) and resumes the paused run (engine/exec/preemption.h). A session's own jobs never run
// in its pause, so each session's jobs still run in the order they were submitted. A single
// step (one matmul) is never cut; jobs run in a pause do not pause themselves.
#pragma once

#include <atomic>
#include <chrono>
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

class DeviceWorker final : engine::Preemption {
 public:
  // `time_slice`: how long a run goes on while other sessions wait before it pauses for them;
  // zero: runs never pause.
  DeviceWorker(std::unique_ptr<engine::Backend> backend, engine::EngineOptions options,
               std::chrono::microseconds time_slice);
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
  // Runs paused for other sessions, and the jobs run in those pauses, since the start.
  uint64_t pauses() const { return pauses_.load(std::memory_order_relaxed); }
  uint64_t jobs_run_in_pauses() const { return jobs_in_pauses_.load(std::memory_order_relaxed); }
  // Times lend_engine lent the engine since the start.
  uint64_t loans() const { return loans_.load(std::memory_order_relaxed); }

  // Cancels every queued job, lets the running one finish and joins the thread. Idempotent.
  void stop();

  // Lends the engine to the calling thread, set up for `session` as a job of it would be, when
  // the worker is idle: no job running, none queued by any session, nothing to complete, and
  // the engine is lendable (Engine::lendable). Returns it, or null at once. Until return_engine,
  // the worker thread runs nothing (jobs submitted meanwhile wait) and runs are never paused.
  engine::Engine* lend_engine(uint64_t session);
  void return_engine();
  bool lendable() const { return lendable_; }

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
  struct Taken {
    uint64_t session = 0;
    Queued queued;
  };

  void loop();
  // Runs `job` under its session's settings and completes it (worker thread).
  void run_job(uint64_t session, Queued job);
  // Takes the front job of the session at the front of ready_ (which must not be empty) and
  // moves the session to the back if it has more; the caller holds mu_.
  Taken take_front_locked();
  // Whether a session other than the running one has jobs queued; the caller holds mu_.
  bool others_ready_locked() const;
  // engine::Preemption, on the worker thread while a job's run is between two steps.
  bool due() noexcept override;
  void pause() override;
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
  // The worker thread has left its wait to run or complete something (under mu_).
  bool worker_busy_ = false;
  // The engine is lent to another thread (lend_engine); written under mu_, read by due() on
  // the thread that holds the engine.
  std::atomic<bool> lent_{false};
  const bool lendable_;

  // Time slicing (pause()). running_ is the session whose job the loop runs (0: none), written
  // under mu_; others_waiting_ says, without the lock, that another session has jobs queued.
  const std::chrono::steady_clock::duration time_slice_;
  uint64_t running_ = 0;
  std::atomic<bool> others_waiting_{false};
  // Worker thread only: the running job's precision, when it started or last resumed, and
  // whether the worker is inside a pause (the jobs run there do not pause).
  engine::Float32MatmulPrecision running_precision_ = engine::Float32MatmulPrecision::Highest;
  std::chrono::steady_clock::time_point slice_start_;
  bool in_pause_ = false;
  std::atomic<uint64_t> pauses_{0};
  std::atomic<uint64_t> jobs_in_pauses_{0};
  std::atomic<uint64_t> loans_{0};

  std::thread thread_;  // last: starts after everything above exists
};

}  // namespace tensord::scheduler
