#include "scheduler/scheduler.h"

#include <stdexcept>
#include <string>

#include "engine/ir/error.h"
#include "scheduler/device_worker.h"

namespace tensord::scheduler {
namespace {

class FunctionJob final : public Job {
 public:
  FunctionJob(std::function<void(engine::Engine&)> run,
              std::function<void(std::exception_ptr)> done)
      : run_(std::move(run)), done_(std::move(done)) {}

  void run(engine::Engine& engine) override { run_(engine); }
  void done(std::exception_ptr error) noexcept override { done_(std::move(error)); }

 private:
  std::function<void(engine::Engine&)> run_;
  std::function<void(std::exception_ptr)> done_;
};

}  // namespace

std::unique_ptr<Job> make_job(std::function<void(engine::Engine&)> run,
                              std::function<void(std::exception_ptr)> done) {
  return std::make_unique<FunctionJob>(std::move(run), std::move(done));
}

SessionQueue::SessionQueue(std::shared_ptr<DeviceWorker> worker, uint64_t id, size_t device)
    : worker_(std::move(worker)), id_(id), device_(device) {}

SessionQueue::SessionQueue(SessionQueue&& other) noexcept
    : worker_(std::move(other.worker_)),
      id_(other.id_),
      device_(other.device_),
      precision_(other.precision_) {}

SessionQueue& SessionQueue::operator=(SessionQueue&& other) noexcept {
  if (this != &other) {
    close();
    worker_ = std::move(other.worker_);
    id_ = other.id_;
    device_ = other.device_;
    precision_ = other.precision_;
  }
  return *this;
}

void SessionQueue::submit(std::unique_ptr<Job> job) {
  if (worker_) {
    worker_->submit(id_, std::move(job));
  } else {
    job->done(std::make_exception_ptr(Error(ErrorCode::Cancelled, "the session is closed")));
  }
}

LentEngine::~LentEngine() {
  if (worker_) worker_->return_engine();
}

std::optional<LentEngine> SessionQueue::borrow_idle_engine() {
  if (!worker_) return std::nullopt;
  engine::Engine* engine = worker_->lend_engine(id_);
  if (!engine) return std::nullopt;
  return LentEngine(worker_, engine);
}

bool SessionQueue::engine_lendable() const {
  return worker_ && worker_->lendable();
}

void SessionQueue::close() {
  if (!worker_) return;
  worker_->close_session(id_);
  worker_.reset();
}

void SessionQueue::set_float32_matmul_precision(engine::Float32MatmulPrecision precision) {
  precision_ = precision;
  if (worker_) worker_->set_float32_matmul_precision(id_, precision);
}

engine::Float32MatmulPrecision SessionQueue::float32_matmul_precision() const {
  return precision_;
}

size_t SessionQueue::queued() const {
  return worker_ ? worker_->queued(id_) : 0;
}

Scheduler::Scheduler(std::vector<std::unique_ptr<engine::Backend>> backends,
                     engine::EngineOptions options, SchedulerOptions scheduling) {
  if (backends.empty()) throw std::invalid_argument("Scheduler: no devices");
  if (scheduling.time_slice.count() < 0) throw std::invalid_argument("Scheduler: time slice < 0");
  for (auto& backend : backends) {
    workers_.push_back(
        std::make_shared<DeviceWorker>(std::move(backend), options, scheduling.time_slice));
  }
}

SliceStats Scheduler::slice_stats(size_t device) const {
  const DeviceWorker& w = *workers_.at(device);
  return SliceStats{w.pauses(), w.jobs_run_in_pauses()};
}

uint64_t Scheduler::engine_loans(size_t device) const {
  return workers_.at(device)->loans();
}

Scheduler::~Scheduler() {
  shutdown();
}

const engine::DeviceInfo& Scheduler::device_info(size_t device) const {
  return workers_.at(device)->info();
}

std::optional<cache::KernelCacheStats> Scheduler::own_kernel_cache_stats(size_t device) const {
  return workers_.at(device)->own_kernel_cache_stats();
}

engine::DeviceMemoryStats Scheduler::memory_stats(size_t device) const {
  return workers_.at(device)->memory_stats();
}

SessionQueue Scheduler::open_session(size_t device) {
  std::shared_ptr<DeviceWorker>& worker = workers_.at(device);
  uint64_t id = worker->open_session();
  return SessionQueue(worker, id, device);
}

size_t Scheduler::queued() const {
  size_t n = 0;
  for (const auto& w : workers_) n += w->queued();
  return n;
}

void Scheduler::shutdown() {
  for (const auto& w : workers_) w->stop();
}

}  // namespace tensord::scheduler
