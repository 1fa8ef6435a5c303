// Time slicing (scheduler/device_worker.h): a long run pauses between its steps for the jobs of
// other sessions, resumes under its own session's settings with its result intact, and never
// lets its own session's later jobs overtake it. Real runs of the engine on the CPU backend.
#include <catch2/catch.hpp>

#include <future>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/exec/engine.h"
#include "scheduler/scheduler.h"
#include "tests/unit/scheduler/scheduler_test_support.h"

namespace tensord::scheduler {
namespace {

using namespace std::chrono_literals;
using test::Journal;
using test::RecordingBackend;
using P = engine::Float32MatmulPrecision;

constexpr int64_t kCells = 64 * 1024;

// x + 1, `steps` times, in eager mode (a step per add), on a [kCells] input of zeros made on
// the worker; returns the first and last element of the result.
std::pair<float, float> add_chain(engine::Engine& engine, int steps) {
  engine::Backend& backend = engine.backend();
  const ir::TensorType type{ir::DType::Float32, {kCells}};
  engine::TensorValue input =
      engine::TensorValue::contiguous(backend.allocate(type.nbytes()), type);
  const std::vector<float> zeros(kCells, 0.0f);
  backend.write(*input.buffer, 0, zeros.data(), type.nbytes());
  ir::Graph g;
  ir::ValueRef x = g.add_input(0, type);
  const ir::ValueRef one = g.add(ir::Op::full, {},
                                 ir::Attrs{{ir::Attr::shape, std::vector<int64_t>{}},
                                           {ir::Attr::value, 1.0},
                                           {ir::Attr::dtype, ir::DType::Float32}});
  for (int i = 0; i < steps; ++i) x = g.add(ir::Op::add, {x, one});
  const std::vector<ir::ValueRef> outputs{x};
  auto out = engine.run(std::move(g), std::vector{input}, outputs, engine::CompileMode::Eager);
  const float* p = out.at(0).data<float>();
  return {p[0], p[kCells - 1]};
}

// A small run of another op (mul), so that its steps can be told from the long run's.
void small_mul(engine::Engine& engine) {
  ir::Graph g;
  const ir::ValueRef x = g.add(ir::Op::full, {},
                               ir::Attrs{{ir::Attr::shape, std::vector<int64_t>{4}},
                                         {ir::Attr::value, 3.0},
                                         {ir::Attr::dtype, ir::DType::Float32}});
  const std::vector<ir::ValueRef> outputs{g.add(ir::Op::mul, {x, x})};
  auto out = engine.run(std::move(g), {}, outputs, engine::CompileMode::Eager);
  if (out.at(0).data<float>()[3] != 9.0f) throw Error(ErrorCode::Internal, "3 * 3 != 9");
}

struct Sliced {
  RecordingBackend* backend;
  Scheduler scheduler;
};

std::unique_ptr<Sliced> sliced(std::chrono::microseconds slice) {
  std::vector<std::unique_ptr<engine::Backend>> backends;
  backends.push_back(std::make_unique<RecordingBackend>());
  auto* backend = static_cast<RecordingBackend*>(backends.front().get());
  return std::unique_ptr<Sliced>(
      new Sliced{backend, Scheduler(std::move(backends), {}, SchedulerOptions{slice})});
}

TEST_CASE("a long run pauses between steps for other sessions and resumes intact") {
  auto s = sliced(1ms);
  Journal journal;
  SessionQueue a = s->scheduler.open_session();
  SessionQueue b = s->scheduler.open_session();
  SessionQueue c = s->scheduler.open_session();
  // The other sessions' jobs are queued before the long run starts (it waits for them), so the
  // run has someone to pause for at every step boundary once a slice has passed.
  std::promise<void> queued;
  std::shared_future<void> others_queued = queued.get_future().share();
  std::pair<float, float> result;
  a.submit(journal.job("long", [&](engine::Engine& engine) {
    others_queued.wait();
    result = add_chain(engine, 400);
  }));
  b.set_float32_matmul_precision(P::Medium);
  b.submit(journal.job("b", [](engine::Engine& engine) { small_mul(engine); }));
  c.submit(journal.job(
      "c-fails", [](engine::Engine&) { throw Error(ErrorCode::Shape, "a failure in the pause"); }));
  queued.set_value();
  const auto done = journal.wait_for(3);
  std::vector<std::string> order;
  for (const auto& d : done) order.push_back(d.job);
  CHECK(order == std::vector<std::string>{"b", "c-fails", "long"});
  CHECK(done[1].error == ErrorCode::Shape);
  CHECK_FALSE(done[2].error);
  CHECK(result == std::pair<float, float>{400.0f, 400.0f});
  const SliceStats stats = s->scheduler.slice_stats(0);
  CHECK(stats.pauses >= 1);
  CHECK(stats.jobs_in_pauses == 2);

  // Every add ran under the long run's session and precision, before and after the pause; the
  // mul under b's, inside it.
  const auto& runs = s->backend->runs;
  uint64_t a_session = 0;
  size_t adds = 0, muls = 0, mul_at = 0;
  for (size_t i = 0; i < runs.size(); ++i) {
    const auto& [op, session, precision] = runs[i];
    if (op == ir::Op::add) {
      if (a_session == 0) a_session = session;
      CHECK(session == a_session);
      CHECK(precision == P::Highest);
      ++adds;
    } else if (op == ir::Op::mul) {
      CHECK(precision == P::Medium);
      ++muls;
      mul_at = i;
    }
  }
  CHECK(adds == 400);
  REQUIRE(muls == 1);
  CHECK(std::get<1>(runs[mul_at]) != a_session);
  // The pause came after the long run's first step and before its last.
  CHECK(mul_at > 0);
  CHECK(std::get<1>(runs.front()) == a_session);
  CHECK(std::get<0>(runs.back()) == ir::Op::add);
}

TEST_CASE("a session's own later jobs wait for its paused run") {
  auto s = sliced(1ms);
  Journal journal;
  SessionQueue a = s->scheduler.open_session();
  SessionQueue b = s->scheduler.open_session();
  std::promise<void> queued;
  std::shared_future<void> others_queued = queued.get_future().share();
  a.submit(journal.job("a-long", [&](engine::Engine& engine) {
    others_queued.wait();
    add_chain(engine, 400);
  }));
  a.submit(journal.job("a-next"));
  b.submit(journal.job("b"));
  queued.set_value();
  const auto done = journal.wait_for(3);
  CHECK(journal.runs() == std::vector<std::string>{"a-long", "b", "a-next"});
  CHECK(done[0].job == "b");
  CHECK(s->scheduler.slice_stats(0).jobs_in_pauses == 1);
}

TEST_CASE("with a zero time slice runs never pause") {
  auto s = sliced(0us);
  Journal journal;
  SessionQueue a = s->scheduler.open_session();
  SessionQueue b = s->scheduler.open_session();
  std::promise<void> queued;
  std::shared_future<void> others_queued = queued.get_future().share();
  a.submit(journal.job("long", [&](engine::Engine& engine) {
    others_queued.wait();
    add_chain(engine, 400);
  }));
  b.submit(journal.job("b"));
  queued.set_value();
  journal.wait_for(2);
  CHECK(journal.runs() == std::vector<std::string>{"long", "b"});
  CHECK(s->scheduler.slice_stats(0).pauses == 0);
}

TEST_CASE("a run with nobody waiting never pauses") {
  auto s = sliced(1us);
  Journal journal;
  SessionQueue a = s->scheduler.open_session();
  std::pair<float, float> result;
  a.submit(journal.job("long", [&](engine::Engine& engine) { result = add_chain(engine, 200); }));
  journal.wait_for(1);
  CHECK(result == std::pair<float, float>{200.0f, 200.0f});
  CHECK(s->scheduler.slice_stats(0).pauses == 0);
}

TEST_CASE("a negative time slice is refused") {
  CHECK_THROWS_AS(Scheduler(test::one_cpu(), {}, SchedulerOptions{-1us}), std::invalid_argument);
}

}  // namespace
}  // namespace tensord::scheduler
