// What the scheduler's tests share: a journal of what the worker did with each job, a gate
// that holds the worker busy, and the CPU backend behind a window that records what the worker
// told it.
#pragma once

#include <catch2/catch.hpp>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "engine/backends/cpu/cpu_backend.h"
#include "engine/ir/error.h"
#include "scheduler/scheduler.h"
#include "tests/support/backend/forwarding_backend.h"

namespace tensord::scheduler::test {

using namespace std::chrono_literals;

inline std::vector<std::unique_ptr<engine::Backend>> one_cpu() {
  std::vector<std::unique_ptr<engine::Backend>> backends;
  backends.push_back(std::make_unique<cpu::CpuBackend>(1));
  return backends;
}

// "a3". (Not "a" + std::to_string(i): GCC 12 warns falsely about that, bug 105329.)
inline std::string numbered(char prefix, int i) {
  std::string s(1, prefix);
  s += std::to_string(i);
  return s;
}

// What happened to the jobs of a test, in the order the worker did it.
class Journal {
 public:
  struct Completion {
    std::string job;
    bool ran = false;
    std::optional<ErrorCode> error;  // nullopt: succeeded
    std::thread::id thread;
  };

  std::unique_ptr<Job> job(std::string name, std::function<void(engine::Engine&)> body) {
    auto ran = std::make_shared<bool>(false);
    return make_job(
        [this, name, body, ran](engine::Engine& engine) {
          *ran = true;
          record_run(name);
          body(engine);
        },
        [this, name, ran](std::exception_ptr error) { record_done(name, *ran, error); });
  }
  std::unique_ptr<Job> job(
      std::string name, std::function<void()> body = [] {}) {
    return job(std::move(name), [body](engine::Engine&) { body(); });
  }

  // Waits until `n` jobs completed; fails the test after a generous timeout.
  std::vector<Completion> wait_for(size_t n) {
    std::unique_lock lock(mu_);
    bool ok = changed_.wait_for(lock, 10s, [&] { return completions_.size() >= n; });
    REQUIRE(ok);
    return completions_;
  }

  std::vector<std::string> runs() {
    std::lock_guard lock(mu_);
    return runs_;
  }

 private:
  void record_run(const std::string& name) {
    std::lock_guard lock(mu_);
    runs_.push_back(name);
  }
  void record_done(const std::string& name, bool ran, std::exception_ptr error) {
    Completion c{name, ran, std::nullopt, std::this_thread::get_id()};
    if (error) {
      try {
        std::rethrow_exception(error);
      } catch (const Error& e) {
        c.error = e.code();
      } catch (...) {
        c.error = ErrorCode::Internal;
      }
    }
    std::lock_guard lock(mu_);
    completions_.push_back(c);
    changed_.notify_all();
  }

  std::mutex mu_;
  std::condition_variable changed_;
  std::vector<std::string> runs_;
  std::vector<Completion> completions_;
};

// Holds the worker busy until opened, so that tests can queue work behind it.
class Gate {
 public:
  // The body holds its own reference to the opened state: the worker may still be inside
  // wait() after open() returned and the test ended, destroying the Gate (declared after the
  // Scheduler, so before the worker is joined): ASan found that use after free.
  std::function<void()> body() {
    return [this, opened = opened_] {
      started_.set_value();
      opened.wait();
    };
  }
  void wait_started() { REQUIRE(started_.get_future().wait_for(10s) == std::future_status::ready); }
  void open() { open_.set_value(); }

 private:
  std::promise<void> started_;
  std::promise<void> open_;
  std::shared_future<void> opened_ = open_.get_future().share();
};

// The CPU backend, remembering the float32 matmul precision and the session the worker last gave
// it, the sessions it was told had ended, and under which of them each node ran.
class RecordingBackend final : public tensord::test::ForwardingBackend {
 public:
  RecordingBackend() : ForwardingBackend(std::make_unique<cpu::CpuBackend>(1)) {}
  void run(const ir::Node& node, std::span<const engine::TensorValue> inputs,
           std::span<const engine::TensorValue> outputs) override {
    runs.emplace_back(node.op, session, precision);
    ForwardingBackend::run(node, inputs, outputs);
  }
  void set_float32_matmul_precision(engine::Float32MatmulPrecision p) override { precision = p; }
  engine::Float32MatmulPrecision float32_matmul_precision() const override { return precision; }
  void set_session(uint64_t id) override { session = id; }
  void end_session(uint64_t id) override {
    std::lock_guard lock(mu);
    ended.push_back(id);
  }

  engine::Float32MatmulPrecision precision = engine::Float32MatmulPrecision::Highest;
  uint64_t session = 0;  // the worker's thread only
  // Each node run: its op, and the session and precision the backend had (worker thread only).
  std::vector<std::tuple<ir::Op, uint64_t, engine::Float32MatmulPrecision>> runs;
  std::mutex mu;
  std::vector<uint64_t> ended;
};

}  // namespace tensord::scheduler::test
