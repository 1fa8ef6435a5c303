// The scheduler: one worker thread per device, fed by one FIFO queue per session and served
// round-robin across sessions, with long runs paused between steps for the others (time
// slicing: scheduler/device_worker.h). The RPC event loop submits jobs; it runs one itself only
// on an engine lent while its worker idles (LentEngine: small CPU runs, docs/scheduling.md). The
// workers run jobs and never touch RPC objects (DESIGN.md, "Threads").
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "engine/exec/backend.h"
#include "engine/exec/engine.h"
#include "scheduler/job.h"

namespace tensord::scheduler {

class DeviceWorker;

struct SchedulerOptions {
  // How long a run goes on while another session waits before it pauses between two steps
  // for the other sessions' queued jobs; zero: runs never pause (turns are whole jobs).
  std::chrono::microseconds time_slice{10'000};
};

// Time slicing on one device since the start (scheduler/device_worker.h).
struct SliceStats {
  uint64_t pauses = 0;          // runs paused between two steps for other sessions
  uint64_t jobs_in_pauses = 0;  // other sessions' jobs run in those pauses
};

// The device's engine lent to the calling thread by SessionQueue::borrow_idle_engine, set up
// for the borrowing session (its stream, its float32 matmul precision) as its worker would be.
// Move-only RAII handle: until it goes, the worker runs nothing (jobs submitted meanwhile wait
// for it) and the holder runs the engine as the worker would. For work that takes microseconds:
// a run here holds up every session of the device and the holder's own thread.
class LentEngine {
 public:
  LentEngine(LentEngine&& other) noexcept = default;
  LentEngine& operator=(LentEngine&&) = delete;
  LentEngine(const LentEngine&) = delete;
  ~LentEngine();

  engine::Engine& engine() const { return *engine_; }

 private:
  friend class SessionQueue;
  LentEngine(std::shared_ptr<DeviceWorker> worker, engine::Engine* engine)
      : worker_(std::move(worker)), engine_(engine) {}

  std::shared_ptr<DeviceWorker> worker_;  // null once moved from
  engine::Engine* engine_;
};

// A session's queue on one device. Move-only RAII handle: closing it (or destroying it) cancels
// the jobs it still has queued; their `done` gets tensord::Error(Cancelled) on the worker
// thread. A job already running finishes normally. A handle may outlive its Scheduler.
class SessionQueue {
 public:
  SessionQueue() = default;  // closed
  SessionQueue(SessionQueue&& other) noexcept;
  SessionQueue& operator=(SessionQueue&& other) noexcept;
  ~SessionQueue() { close(); }

  // Queues `job` behind this session's earlier jobs. On a closed queue, or once the scheduler
  // is shutting down, the job is completed with Cancelled at once on the calling thread.
  void submit(std::unique_ptr<Job> job);

  void close();
  bool is_open() const { return worker_ != nullptr; }
  // The engine, to run a job's work on this thread instead of queueing it, when that keeps the
  // session's order and costs nobody a wait: the device's worker is idle with nothing queued by
  // any session, and its engine is lendable (Engine::lendable: the CPU backend). Saves the two
  // thread hand-offs of a queued job. Nothing (at once) otherwise, or on a closed queue.
  std::optional<LentEngine> borrow_idle_engine();
  // Whether the device's engine is ever lent (Engine::lendable); false on a closed queue.
  bool engine_lendable() const;
  // The float32 matmul precision of the jobs submitted from now on (PyTorch's
  // torch.set_float32_matmul_precision, per session): the worker gives it to the backend
  // before running each of them. Jobs already queued keep theirs. Default: Highest.
  void set_float32_matmul_precision(engine::Float32MatmulPrecision precision);
  engine::Float32MatmulPrecision float32_matmul_precision() const;
  size_t queued() const;  // jobs waiting, not counting one that is running
  size_t device() const { return device_; }

 private:
  friend class Scheduler;
  SessionQueue(std::shared_ptr<DeviceWorker> worker, uint64_t id, size_t device);

  std::shared_ptr<DeviceWorker> worker_;
  uint64_t id_ = 0;
  size_t device_ = 0;
  // Kept here too, so that a closed queue still answers.
  engine::Float32MatmulPrecision precision_ = engine::Float32MatmulPrecision::Highest;
};

class Scheduler {
 public:
  // One worker per backend, each with its own engine. Device i is backends[i].
  Scheduler(std::vector<std::unique_ptr<engine::Backend>> backends,
            engine::EngineOptions options = {}, SchedulerOptions scheduling = {});
  ~Scheduler();  // shutdown()
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  size_t device_count() const { return workers_.size(); }
  const engine::DeviceInfo& device_info(size_t device) const;
  // The device's memory figures (Backend::memory_stats), read now from the calling thread,
  // without waiting for queued work.
  engine::DeviceMemoryStats memory_stats(size_t device) const;
  // The device's own kernel cache, if it has one (Backend::own_kernel_cache_stats).
  std::optional<cache::KernelCacheStats> own_kernel_cache_stats(size_t device) const;

  SliceStats slice_stats(size_t device) const;
  // Times the device's engine was lent to another thread (SessionQueue::borrow_idle_engine).
  uint64_t engine_loans(size_t device) const;

  SessionQueue open_session(size_t device = 0);

  // Jobs queued on every device, not counting running ones.
  size_t queued() const;

  // Cancels every queued job, waits for running jobs and joins the workers. Idempotent.
  void shutdown();

 private:
  std::vector<std::shared_ptr<DeviceWorker>> workers_;
};

}  // namespace tensord::scheduler
