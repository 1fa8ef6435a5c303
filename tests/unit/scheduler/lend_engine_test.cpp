// SessionQueue::borrow_idle_engine: the engine is lent to the calling thread only while the
// worker idles with nothing queued, the worker runs nothing during the loan, and jobs submitted
// meanwhile run, in order, once it ends.
#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>
#include <functional>
#include <iterator>
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

// rand([1 << 20]) on `engine`: enough elements for a CPU kernel to split over threads.
void run_large_graph(engine::Engine& engine) {
  ir::Graph graph;
  auto r = graph.add(ir::Op::rand, {},
                     {{ir::Attr::shape, Ints{1 << 20}},
                      {ir::Attr::seed, int64_t{7}},
                      {ir::Attr::dtype, ir::DType::Float32}});
  std::vector<ir::ValueRef> outputs{r};
  engine.run(std::move(graph), {}, outputs);
}

// Threads of this process now (Linux).
size_t process_threads() {
  return static_cast<size_t>(std::distance(std::filesystem::directory_iterator("/proc/self/task"),
                                           std::filesystem::directory_iterator{}));
}

// The threads a new thread running `f` leaves behind: an OpenMP team stays with its master
// thread until that thread ends, so they are counted while it still runs.
size_t threads_started_by(const std::function<void()>& f) {
  size_t started = 0;
  std::thread t([&] {
    size_t before = process_threads();
    f();
    started = process_threads() - before;
  });
  t.join();
  return started;
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

TEST_CASE("a lent CPU engine runs every step on the borrowing thread alone") {
  std::vector<std::unique_ptr<engine::Backend>> backends;
  backends.push_back(std::make_unique<cpu::CpuBackend>(2));
  Scheduler scheduler(std::move(backends));
  SessionQueue queue = scheduler.open_session();
  // Control: the same run on an engine of its own starts a thread team from a new thread.
  cpu::CpuBackend backend(2);
  engine::Engine own(backend);
  const size_t base = process_threads();
  REQUIRE(threads_started_by([&] { run_large_graph(own); }) > 0);
  // Its team ends after its master thread: wait for that, so that it does not hide a new one.
  for (int i = 0; i < 500 && process_threads() > base; ++i) std::this_thread::sleep_for(10ms);
  REQUIRE(process_threads() == base);
  // A lent engine's steps do not (a second team would spin beside the worker's).
  bool lent_there = false;
  size_t started = threads_started_by([&] {
    std::optional<LentEngine> lent = queue.borrow_idle_engine();
    lent_there = lent.has_value();
    if (lent) run_large_graph(lent->engine());
  });
  REQUIRE(lent_there);
  CHECK(started == 0);
  // The worker runs as before once the engine is back.
  Journal journal;
  queue.submit(journal.job("large", [](engine::Engine& engine) { run_large_graph(engine); }));
  CHECK(journal.wait_for(1)[0].ran);
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
