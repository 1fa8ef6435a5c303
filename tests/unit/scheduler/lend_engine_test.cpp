// SessionQueue::borrow_idle_engine: the engine is lent to the calling thread only while the
// worker idles with nothing queued, the worker runs nothing during the loan, and jobs submitted
// meanwhile run, in order, once it ends.
#include <catch2/catch.hpp>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "engine/backends/cpu/cpu_backend.h"
#include "engine/ir/graph.h"
#include "scheduler/scheduler.h"
#include "tests/unit/scheduler/scheduler_test_support.h"

namespace tensord::scheduler {
namespace {

using namespace std::chrono_literals;
using test::Gate;
using test::Journal;
using test::numbered;
using test::one_cpu;

using Ints = std::vector<int64_t>;

// full([3], 2) * 4 on `engine`: a whole run on whichever thread calls it.
std::vector<float> run_small_graph(engine::Engine& engine) {
  ir::Graph graph;
  auto two = graph.add(
      ir::Op::full, {},
      {{ir::Attr::shape, Ints{3}}, {ir::Attr::value, 2.0}, {ir::Attr::dtype, ir::DType::Float32}});
  auto four = graph.add(
      ir::Op::full, {},
      {{ir::Attr::shape, Ints{}}, {ir::Attr::value, 4.0}, {ir::Attr::dtype, ir::DType::Float32}});
  auto y = graph.add(ir::Op::mul, {two, four});
  std::vector<ir::ValueRef> outputs{y};
  auto values = engine.run(std::move(graph), {}, outputs);
  const float* data = values.at(0).data<float>();  // the CPU's memory: readable here
  return std::vector<float>(data, data + 3);
}

TEST_CASE("an idle worker lends its engine to the calling thread") {
  Scheduler scheduler(one_cpu());
  SessionQueue queue = scheduler.open_session();
  CHECK(queue.engine_lendable());
  std::optional<LentEngine> lent = queue.borrow_idle_engine();
  REQUIRE(lent);
  CHECK(run_small_graph(lent->engine()) == std::vector<float>{8, 8, 8});
  lent.reset();
  CHECK(scheduler.engine_loans(0) == 1);

  // The worker goes on as before once the engine is back.
  Journal journal;
  queue.submit(journal.job("after"));
  auto done = journal.wait_for(1);
  CHECK(done[0].ran);
  CHECK(done[0].thread != std::this_thread::get_id());
}

TEST_CASE("a busy worker or a queued job lends nothing") {
  Scheduler scheduler(one_cpu());
  Journal journal;
  Gate gate;
  SessionQueue blocker = scheduler.open_session();
  SessionQueue a = scheduler.open_session();
  blocker.submit(journal.job("gate", gate.body()));
  gate.wait_started();
  CHECK_FALSE(a.borrow_idle_engine());        // running another session's job
  CHECK_FALSE(blocker.borrow_idle_engine());  // running this session's job
  a.submit(journal.job("a0"));
  gate.open();
  journal.wait_for(2);
  CHECK(journal.runs() == std::vector<std::string>{"gate", "a0"});
  CHECK(scheduler.engine_loans(0) == 0);
}

TEST_CASE("jobs submitted during a loan wait for it and then run in order") {
  Scheduler scheduler(one_cpu());
  Journal journal;
  SessionQueue a = scheduler.open_session();
  SessionQueue b = scheduler.open_session();
  std::optional<LentEngine> lent = a.borrow_idle_engine();
  REQUIRE(lent);
  for (int i = 0; i < 3; ++i) a.submit(journal.job(numbered('a', i)));
  b.submit(journal.job("b0"));
  CHECK_FALSE(b.borrow_idle_engine());  // one loan at a time, and b has a job queued
  std::this_thread::sleep_for(50ms);
  CHECK(journal.runs().empty());  // the worker waits for the engine
  CHECK(a.queued() == 3);
  lent.reset();
  auto done = journal.wait_for(4);
  CHECK(journal.runs() == std::vector<std::string>{"a0", "b0", "a1", "a2"});
  for (const auto& c : done) CHECK(c.thread != std::this_thread::get_id());
}

TEST_CASE("a backend not known to run on any thread is never lent") {
  auto recording = std::make_unique<test::RecordingBackend>();
  test::RecordingBackend* backend = recording.get();
  std::vector<std::unique_ptr<engine::Backend>> backends;
  backends.push_back(std::move(recording));
  Scheduler scheduler(std::move(backends));
  SessionQueue queue = scheduler.open_session();
  // RecordingBackend forwards to the CPU backend but does not say that it runs on any thread:
  // a backend that does not is never lent (CUDA's case).
  CHECK_FALSE(queue.engine_lendable());
  CHECK_FALSE(queue.borrow_idle_engine());
  CHECK(backend->runs.empty());
}

TEST_CASE("a closed queue lends nothing") {
  Scheduler scheduler(one_cpu());
  SessionQueue closed = scheduler.open_session();
  closed.close();
  CHECK_FALSE(closed.borrow_idle_engine());
}

TEST_CASE("a loan outlives its queue") {
  Scheduler scheduler(one_cpu());
  SessionQueue queue = scheduler.open_session();
  std::optional<LentEngine> lent = queue.borrow_idle_engine();
  REQUIRE(lent);
  queue.close();  // the worker tells the backend once the engine is back
  CHECK(run_small_graph(lent->engine()) == std::vector<float>{8, 8, 8});
  lent.reset();
  SessionQueue other = scheduler.open_session();
  Journal journal;
  other.submit(journal.job("next"));
  CHECK(journal.wait_for(1)[0].ran);
}

TEST_CASE("shutting down waits for a loan to end") {
  Scheduler scheduler(one_cpu());
  SessionQueue queue = scheduler.open_session();
  std::optional<LentEngine> lent = queue.borrow_idle_engine();
  REQUIRE(lent);
  std::thread stopper([&] { scheduler.shutdown(); });
  std::this_thread::sleep_for(20ms);
  CHECK(run_small_graph(lent->engine()) == std::vector<float>{8, 8, 8});
  lent.reset();
  stopper.join();
  CHECK_FALSE(queue.borrow_idle_engine());
}

}  // namespace
}  // namespace tensord::scheduler
