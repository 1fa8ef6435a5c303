#include "scheduler/device_worker.h"

#include <algorithm>
#include <optional>

#include "engine/ir/error.h"

namespace tensord::scheduler {
namespace {

std::exception_ptr cancelled_error(const std::string& reason) {
  return std::make_exception_ptr(Error(ErrorCode::Cancelled, reason));
}

engine::EngineOptions with_preemption(engine::EngineOptions options,
                                      engine::Preemption* preemption) {
  options.preemption = preemption;
  return options;
}

}  // namespace

DeviceWorker::DeviceWorker(std::unique_ptr<engine::Backend> backend, engine::EngineOptions options,
                           std::chrono::microseconds time_slice)
    : backend_(std::move(backend)),
      engine_(*backend_,
              with_preemption(std::move(options), time_slice.count() > 0 ? this : nullptr)),
      lendable_(engine_.lendable()),
      time_slice_(time_slice),
      thread_([this] { loop(); }) {}

DeviceWorker::~DeviceWorker() {
  stop();
}

uint64_t DeviceWorker::open_session() {
  std::lock_guard lock(mu_);
  uint64_t id = next_session_++;
  sessions_.emplace(id, Session{});
  return id;
}

void DeviceWorker::close_session(uint64_t session) {
  {
    std::lock_guard lock(mu_);
    auto it = sessions_.find(session);
    if (it == sessions_.end()) return;
    if (!it->second.jobs.empty()) {
      cancel_locked(it->second, "the session closed before this request ran");
      ready_.erase(std::remove(ready_.begin(), ready_.end(), session), ready_.end());
    }
    sessions_.erase(it);
    closed_.push_back(session);  // the worker tells the backend, so wake it either way
  }
  wake_.notify_one();
}

void DeviceWorker::submit(uint64_t session, std::unique_ptr<Job> job) {
  const char* reason = nullptr;
  {
    std::lock_guard lock(mu_);
    auto it = sessions_.find(session);
    if (!stopping_ && it != sessions_.end()) {
      if (it->second.jobs.empty()) ready_.push_back(session);
      it->second.jobs.push_back(Queued{std::move(job), it->second.precision});
      if (session != running_) others_waiting_.store(true, std::memory_order_relaxed);
    } else {
      reason = stopping_ ? "the daemon is shutting down" : "the session is closed";
    }
  }
  if (reason == nullptr) {
    wake_.notify_one();  // outside the lock: the woken worker need not wait for it
    return;
  }
  // No worker will take it: complete it here, outside the lock.
  job->done(cancelled_error(reason));
}

void DeviceWorker::set_float32_matmul_precision(uint64_t session,
                                                engine::Float32MatmulPrecision precision) {
  std::lock_guard lock(mu_);
  auto it = sessions_.find(session);
  if (it != sessions_.end()) it->second.precision = precision;
}

size_t DeviceWorker::queued(uint64_t session) const {
  std::lock_guard lock(mu_);
  auto it = sessions_.find(session);
  return it == sessions_.end() ? 0 : it->second.jobs.size();
}

size_t DeviceWorker::queued() const {
  std::lock_guard lock(mu_);
  size_t n = 0;
  for (const auto& [id, s] : sessions_) n += s.jobs.size();
  return n;
}

void DeviceWorker::stop() {
  {
    std::lock_guard lock(mu_);
    if (stopping_) return;
    stopping_ = true;
    for (auto& [id, s] : sessions_) cancel_locked(s, "the daemon is shutting down");
    ready_.clear();
  }
  wake_.notify_one();
  thread_.join();
}

engine::Engine* DeviceWorker::lend_engine(uint64_t session) {
  if (!lendable_) return nullptr;
  engine::Float32MatmulPrecision precision;
  {
    std::lock_guard lock(mu_);
    auto it = sessions_.find(session);
    if (worker_busy_ || lent_.load(std::memory_order_relaxed) || !idle_locked() ||
        it == sessions_.end()) {
      return nullptr;
    }
    lent_.store(true, std::memory_order_relaxed);
    precision = it->second.precision;
  }
  loans_.fetch_add(1, std::memory_order_relaxed);
  // The worker thread waits (lent_), so the backend is this thread's until return_engine.
  backend_->set_session(session);
  backend_->set_float32_matmul_precision(precision);
  backend_->set_single_threaded(true);
  return &engine_;
}

void DeviceWorker::return_engine() {
  backend_->set_single_threaded(false);  // still this thread's engine
  bool work;
  {
    std::lock_guard lock(mu_);
    lent_.store(false, std::memory_order_relaxed);
    work = !idle_locked();
  }
  if (work) wake_.notify_one();  // jobs submitted during the loan
}

void DeviceWorker::cancel_locked(Session& session, const std::string& reason) {
  for (auto& queued : session.jobs) cancelled_.emplace_back(std::move(queued.job), reason);
  session.jobs.clear();
}

bool DeviceWorker::idle_locked() const {
  return !stopping_ && ready_.empty() && cancelled_.empty() && closed_.empty();
}

DeviceWorker::Taken DeviceWorker::take_front_locked() {
  const uint64_t id = ready_.front();
  ready_.pop_front();
  Session& s = sessions_.at(id);
  Taken taken{id, std::move(s.jobs.front())};
  s.jobs.pop_front();
  if (!s.jobs.empty()) ready_.push_back(id);
  return taken;
}

bool DeviceWorker::others_ready_locked() const {
  return std::any_of(ready_.begin(), ready_.end(), [&](uint64_t id) { return id != running_; });
}

void DeviceWorker::run_job(uint64_t session, Queued queued) {
  std::exception_ptr error;
  try {
    // Sessions take turns on one backend: each job runs under its own session's settings
    // (CUDA: its stream, so the device overlaps its work with the other sessions').
    backend_->set_session(session);
    backend_->set_float32_matmul_precision(queued.precision);
    queued.job->run(engine_);
  } catch (...) {
    error = std::current_exception();
  }
  queued.job->done(error);
}

void DeviceWorker::loop() {
  for (;;) {
    std::vector<Cancelled> cancelled;
    std::vector<uint64_t> closed;
    std::optional<Taken> taken;
    {
      std::unique_lock lock(mu_);
      running_ = 0;
      worker_busy_ = false;
      // No spinning before sleeping: on small machines a spinning worker takes the CPU the
      // event loop and the client need to deliver the next request (measured: slower).
      wake_.wait(lock, [&] { return !lent_.load(std::memory_order_relaxed) && !idle_locked(); });
      worker_busy_ = true;
      cancelled.swap(cancelled_);
      closed.swap(closed_);
      if (cancelled.empty() && closed.empty()) {
        if (ready_.empty()) return;  // stopping, and nothing left to complete
        taken = take_front_locked();
        running_ = taken->session;
        others_waiting_.store(others_ready_locked(), std::memory_order_relaxed);
      }
    }
    for (auto& [cancelled_job, reason] : cancelled) cancelled_job->done(cancelled_error(reason));
    for (uint64_t id : closed) {
      try {
        backend_->end_session(id);
      } catch (...) {
        // The session is gone; a backend that cannot release its state keeps it until it goes.
      }
    }
    if (!taken) continue;
    running_precision_ = taken->queued.precision;
    slice_start_ = std::chrono::steady_clock::now();
    run_job(taken->session, std::move(taken->queued));
  }
}

bool DeviceWorker::due() noexcept {
  // A lent engine runs small work on a thread that must not run other sessions' jobs.
  if (in_pause_ || lent_.load(std::memory_order_relaxed)) return false;
  if (!others_waiting_.load(std::memory_order_relaxed)) return false;
  return std::chrono::steady_clock::now() - slice_start_ >= time_slice_;
}

void DeviceWorker::pause() {
  // One round: the front job of every other session that has one, in the loop's order. The
  // running session keeps its place; sessions that submit during the round wait for the next.
  std::vector<Taken> round;
  {
    std::lock_guard lock(mu_);
    for (size_t n = ready_.size(); n > 0; --n) {
      if (ready_.front() == running_) {
        ready_.push_back(ready_.front());
        ready_.pop_front();
        continue;
      }
      round.push_back(take_front_locked());
    }
  }
  in_pause_ = true;
  for (Taken& t : round) run_job(t.session, std::move(t.queued));
  in_pause_ = false;
  pauses_.fetch_add(1, std::memory_order_relaxed);
  jobs_in_pauses_.fetch_add(round.size(), std::memory_order_relaxed);
  backend_->set_session(running_);
  backend_->set_float32_matmul_precision(running_precision_);
  {
    std::lock_guard lock(mu_);
    others_waiting_.store(others_ready_locked(), std::memory_order_relaxed);
  }
  slice_start_ = std::chrono::steady_clock::now();
}

}  // namespace tensord::scheduler
