#include "scheduler/device_worker.h"

#include <algorithm>

#include "engine/ir/error.h"

namespace tensord::scheduler {
namespace {

std::exception_ptr cancelled_error(const std::string& reason) {
  return std::make_exception_ptr(Error(ErrorCode::Cancelled, reason));
}

}  // namespace

DeviceWorker::DeviceWorker(std::unique_ptr<engine::Backend> backend, engine::EngineOptions options)
    : backend_(std::move(backend)),
      engine_(*backend_, std::move(options)),
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

void DeviceWorker::cancel_locked(Session& session, const std::string& reason) {
  for (auto& queued : session.jobs) cancelled_.emplace_back(std::move(queued.job), reason);
  session.jobs.clear();
}

bool DeviceWorker::idle_locked() const {
  return !stopping_ && ready_.empty() && cancelled_.empty() && closed_.empty();
}

void DeviceWorker::loop() {
  for (;;) {
    std::vector<Cancelled> cancelled;
    std::vector<uint64_t> closed;
    std::unique_ptr<Job> job;
    uint64_t session = 0;
    auto precision = engine::Float32MatmulPrecision::Highest;
    {
      std::unique_lock lock(mu_);
      // No spinning before sleeping: on small machines a spinning worker takes the CPU the
      // event loop and the client need to deliver the next request (measured: slower).
      wake_.wait(lock, [&] { return !idle_locked(); });
      cancelled.swap(cancelled_);
      closed.swap(closed_);
      if (cancelled.empty() && closed.empty()) {
        if (ready_.empty()) return;  // stopping, and nothing left to complete
        uint64_t id = ready_.front();
        ready_.pop_front();
        Session& s = sessions_.at(id);
        job = std::move(s.jobs.front().job);
        precision = s.jobs.front().precision;
        session = id;
        s.jobs.pop_front();
        if (!s.jobs.empty()) ready_.push_back(id);
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
    if (!job) continue;
    std::exception_ptr error;
    try {
      // Sessions take turns on one backend: each job runs under its own session's settings
      // (CUDA: its stream, so the device overlaps its work with the other sessions').
      backend_->set_session(session);
      backend_->set_float32_matmul_precision(precision);
      job->run(engine_);
    } catch (...) {
      error = std::current_exception();
    }
    job->done(error);
  }
}

}  // namespace tensord::scheduler
