// The reduce-overhead rule: which plans are worth recording (their input and output copies
// against the launches saved), and what explain says on a backend that cannot capture. The
// recording itself needs a GPU: tests/unit/cuda/graph_capture_gpu_test.cpp.
#include <catch2/catch.hpp>

#include <vector>

#include "engine/backends/cpu/cpu_backend.h"
#include "engine/exec/captured_plans.h"
#include "engine/exec/engine.h"
#include "engine/exec/explain.h"

namespace tensord::engine {
namespace {

using Ints = std::vector<int64_t>;

std::shared_ptr<const Plan> plan_of(Engine& engine, int64_t n, int chain) {
  ir::Graph g;
  const ir::TensorType t{ir::DType::Float32, ir::Shape{n}};
  ir::ValueRef x = g.add_input(0, t);
  for (int i = 0; i < chain; ++i) x = g.add(i % 2 ? ir::Op::exp : ir::Op::neg, {x});
  const ir::ValueRef outs[] = {x};
  const ir::TensorType types[] = {t};
  return engine.plan_for(g, types, outs, CompileMode::Eager);
}

TEST_CASE("plans are recorded only when their copies cost less than the launches they save") {
  cpu::CpuBackend cpu(1);
  Engine engine(cpu);
  // 4 KiB through 8 kernels: launch-bound, worth a recording.
  CHECK(worth_capturing(*plan_of(engine, 1024, 8)));
  // 256 MiB in and out of one kernel: the copies would cost far more than one launch.
  CHECK_FALSE(worth_capturing(*plan_of(engine, int64_t{64} << 20, 1)));
  // The limit scales with the steps: 1 MiB of copies per step.
  CHECK(worth_capturing(*plan_of(engine, int64_t{1} << 17, 1)));  // 512 KiB in + 512 KiB out
  CHECK_FALSE(worth_capturing(*plan_of(engine, (int64_t{1} << 17) + 1, 1)));
}

TEST_CASE("explain on the CPU says there is nothing to capture") {
  cpu::CpuBackend cpu(1);
  Engine engine(cpu);
  ir::Graph g;
  const ir::TensorType t{ir::DType::Float32, ir::Shape{4}};
  const ir::ValueRef outs[] = {g.add(ir::Op::exp, {g.add_input(0, t)})};
  const ir::TensorType types[] = {t};
  const Explanation e = explain(engine, g, types, outs, CompileMode::ReduceOverhead);
  CHECK_FALSE(e.captured);
  CHECK(e.capture.find("nothing to capture") != std::string::npos);
}

}  // namespace
}  // namespace tensord::engine
