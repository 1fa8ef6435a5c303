#include "scheduler/scheduler.h"

#include <catch2/catch.hpp>

#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "engine/backends/cpu/cpu_backend.h"
#include "engine/ir/error.h"
#include "tests/unit/scheduler/scheduler_test_support.h"

namespace tensord::scheduler {
namespace {

using namespace std::chrono_literals;
using test::Gate;
using test::Journal;
using test::numbered;
using test::one_cpu;
using test::RecordingBackend;

TEST_CASE("jobs of one session run in FIFO order on the worker thread") {
  Scheduler scheduler(one_cpu());
  Journal journal;
  Gate gate;
  SessionQueue blocker = scheduler.open_session();
  SessionQueue a = scheduler.open_session();
  blocker.submit(journal.job("gate", gate.body()));
  gate.wait_started();
  for (int i = 0; i < 5; ++i) a.submit(journal.job(numbered('a', i)));
  REQUIRE(a.queued() == 5);
  gate.open();
  auto done = journal.wait_for(6);
  REQUIRE(journal.runs() == std::vector<std::string>{"gate", "a0", "a1", "a2", "a3", "a4"});
  for (const auto& c : done) {
    REQUIRE(c.ran);
    REQUIRE_FALSE(c.error);
    REQUIRE(c.thread != std::this_thread::get_id());
    REQUIRE(c.thread == done[0].thread);
  }
  REQUIRE(a.queued() == 0);
}

TEST_CASE("sessions are served round-robin, one job each in turn") {
  Scheduler scheduler(one_cpu());
  Journal journal;
  Gate gate;
  SessionQueue blocker = scheduler.open_session();
  SessionQueue a = scheduler.open_session();
  SessionQueue b = scheduler.open_session();
  blocker.submit(journal.job("gate", gate.body()));
  gate.wait_started();
  for (int i = 0; i < 4; ++i) a.submit(journal.job(numbered('a', i)));
  for (int i = 0; i < 2; ++i) b.submit(journal.job(numbered('b', i)));
  gate.open();
  journal.wait_for(7);
  REQUIRE(journal.runs() == std::vector<std::string>{"gate", "a0", "b0", "a1", "b1", "a2", "a3"});
}

TEST_CASE("closing a session cancels its queued jobs and no others") {
  Scheduler scheduler(one_cpu());
  Journal journal;
  Gate gate;
  SessionQueue blocker = scheduler.open_session();
  SessionQueue a = scheduler.open_session();
  SessionQueue b = scheduler.open_session();
  blocker.submit(journal.job("gate", gate.body()));
  gate.wait_started();
  a.submit(journal.job("a0"));
  b.submit(journal.job("b0"));
  a.submit(journal.job("a1"));
  a.close();
  REQUIRE_FALSE(a.is_open());
  REQUIRE(scheduler.queued() == 1);
  a.submit(journal.job("late"));  // completed at once on this thread
  gate.open();
  auto done = journal.wait_for(5);
  REQUIRE(journal.runs() == std::vector<std::string>{"gate", "b0"});
  for (const auto& c : done) {
    bool cancelled = c.job == "a0" || c.job == "a1" || c.job == "late";
    CAPTURE(c.job);
    REQUIRE(c.ran == !cancelled);
    REQUIRE(c.error == (cancelled ? std::optional(ErrorCode::Cancelled) : std::nullopt));
    REQUIRE((c.thread == std::this_thread::get_id()) == (c.job == "late"));
  }
}

TEST_CASE("a job that throws reports the exception through done") {
  Scheduler scheduler(one_cpu());
  Journal journal;
  SessionQueue a = scheduler.open_session();
  a.submit(journal.job("bad", [] { throw Error(ErrorCode::Shape, "no"); }));
  a.submit(journal.job("good"));
  auto done = journal.wait_for(2);
  REQUIRE(done[0].error == ErrorCode::Shape);
  REQUIRE_FALSE(done[1].error);
}

TEST_CASE("shutdown cancels queued work, finishes the running job and joins") {
  auto scheduler = std::make_unique<Scheduler>(one_cpu());
  Journal journal;
  Gate gate;
  SessionQueue a = scheduler->open_session();
  SessionQueue b = scheduler->open_session();
  a.submit(journal.job("gate", gate.body()));
  gate.wait_started();
  a.submit(journal.job("a1"));
  b.submit(journal.job("b0"));
  std::thread stopper([&] { scheduler->shutdown(); });
  // shutdown() takes the queued jobs away before it waits for the running one.
  auto deadline = std::chrono::steady_clock::now() + 10s;
  while (scheduler->queued() != 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(1ms);
  }
  REQUIRE(scheduler->queued() == 0);
  gate.open();
  stopper.join();
  auto done = journal.wait_for(3);
  REQUIRE(journal.runs() == std::vector<std::string>{"gate"});
  REQUIRE(done[0].job == "gate");
  REQUIRE_FALSE(done[0].error);
  REQUIRE(done[1].error == ErrorCode::Cancelled);
  REQUIRE(done[2].error == ErrorCode::Cancelled);

  b.submit(journal.job("after"));
  REQUIRE(journal.wait_for(4)[3].error == ErrorCode::Cancelled);
  scheduler.reset();  // the queues outlive the scheduler
  a.close();
}

TEST_CASE("jobs run the device's engine") {
  Scheduler scheduler(one_cpu());
  REQUIRE(scheduler.device_count() == 1);
  REQUIRE(scheduler.device_info(0).kind == "cpu");
  SessionQueue a = scheduler.open_session();
  std::promise<std::vector<float>> result;
  a.submit(make_job(
      [&](engine::Engine& engine) {
        ir::Graph g;
        ir::ValueRef x = g.add(ir::Op::full, {},
                               ir::Attrs{{ir::Attr::shape, std::vector<int64_t>{3}},
                                         {ir::Attr::value, 1.5},
                                         {ir::Attr::dtype, ir::DType::Float32}});
        ir::ValueRef y = g.add(ir::Op::add, {x, x});
        std::vector<ir::ValueRef> outputs{y};
        auto values = engine.run(std::move(g), {}, outputs);
        const float* p = values.at(0).data<float>();
        result.set_value({p, p + 3});
      },
      [&](std::exception_ptr error) {
        if (error) result.set_exception(error);
      }));
  auto future = result.get_future();
  REQUIRE(future.wait_for(10s) == std::future_status::ready);
  REQUIRE(future.get() == std::vector<float>{3, 3, 3});
}

TEST_CASE("each job runs under the float32 matmul precision its session had when submitting") {
  std::vector<std::unique_ptr<engine::Backend>> backends;
  backends.push_back(std::make_unique<RecordingBackend>());
  Scheduler scheduler(std::move(backends));
  Gate gate;
  std::mutex mu;
  std::vector<std::pair<std::string, engine::Float32MatmulPrecision>> seen;
  std::promise<void> all_done;
  auto job = [&](
                 std::string name, std::function<void()> body = [] {}) {
    return make_job(
        [&, name, body](engine::Engine& engine) {
          body();
          std::lock_guard lock(mu);
          seen.emplace_back(name, static_cast<RecordingBackend&>(engine.backend()).precision);
        },
        [&, name](std::exception_ptr) {
          if (name == "a2") all_done.set_value();
        });
  };
  SessionQueue blocker = scheduler.open_session();
  SessionQueue a = scheduler.open_session();
  SessionQueue b = scheduler.open_session();
  REQUIRE(a.float32_matmul_precision() == engine::Float32MatmulPrecision::Highest);
  blocker.submit(job("gate", gate.body()));
  gate.wait_started();
  a.submit(job("a0"));
  a.set_float32_matmul_precision(engine::Float32MatmulPrecision::Medium);
  REQUIRE(a.float32_matmul_precision() == engine::Float32MatmulPrecision::Medium);
  a.submit(job("a1"));
  b.submit(job("b0"));
  a.set_float32_matmul_precision(engine::Float32MatmulPrecision::High);
  a.submit(job("a2"));
  gate.open();
  REQUIRE(all_done.get_future().wait_for(10s) == std::future_status::ready);
  using P = engine::Float32MatmulPrecision;
  std::lock_guard lock(mu);
  REQUIRE(seen == std::vector<std::pair<std::string, P>>{{"gate", P::Highest},
                                                         {"a0", P::Highest},
                                                         {"b0", P::Highest},
                                                         {"a1", P::Medium},
                                                         {"a2", P::High}});
}

TEST_CASE("the backend is told each job's session and, on the worker, which sessions ended") {
  std::vector<std::unique_ptr<engine::Backend>> backends;
  backends.push_back(std::make_unique<RecordingBackend>());
  auto* backend = static_cast<RecordingBackend*>(backends.front().get());
  Scheduler scheduler(std::move(backends));
  // Runs one job on `queue` and returns the session the backend had while it ran.
  auto session_of = [](SessionQueue& queue) {
    std::promise<uint64_t> seen;
    auto future = seen.get_future();
    queue.submit(make_job(
        [&](engine::Engine& engine) {
          seen.set_value(static_cast<RecordingBackend&>(engine.backend()).session);
        },
        [](std::exception_ptr) {}));
    REQUIRE(future.wait_for(10s) == std::future_status::ready);
    return future.get();
  };
  SessionQueue a = scheduler.open_session();
  SessionQueue b = scheduler.open_session();
  const uint64_t a_id = session_of(a);
  const uint64_t b_id = session_of(b);
  CHECK(a_id != 0);
  CHECK(b_id != 0);
  CHECK(a_id != b_id);
  CHECK(session_of(a) == a_id);
  {
    std::lock_guard lock(backend->mu);
    CHECK(backend->ended.empty());
  }
  a.close();
  CHECK(session_of(b) == b_id);  // the worker went round its loop: it has told the backend
  std::lock_guard lock(backend->mu);
  CHECK(backend->ended == std::vector<uint64_t>{a_id});
}

TEST_CASE("the scheduler reads a device's memory figures without queueing") {
  Scheduler scheduler(one_cpu());
  Gate gate;
  SessionQueue a = scheduler.open_session();
  a.submit(make_job([&](engine::Engine&) { gate.body()(); }, [](std::exception_ptr) {}));
  gate.wait_started();
  // The worker is busy: the figures come anyway.
  const engine::DeviceMemoryStats stats = scheduler.memory_stats(0);
  CHECK_FALSE(stats.allocator.has_value());  // the CPU has no caching allocator
  CHECK(stats.host_cache.has_value());
  gate.open();
}

}  // namespace
}  // namespace tensord::scheduler
