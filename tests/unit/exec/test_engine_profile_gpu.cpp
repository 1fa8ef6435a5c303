// What a profile records of runs on a GPU, with the engine's own code and the CPU's kernels
// behind a backend that calls itself a GPU and emulates graph capture (work run between
// begin_capture and end_capture is kept, not done, and replay does it): steps and runs are
// tagged "on GPU", float32 matmuls at "highest" precision are tagged for the tf32 rule, and a
// profiled reduce-overhead run stays a replay whose outputs the memory ledger books.
#include <catch2/catch.hpp>

#include <functional>
#include <memory>
#include <vector>

#include "engine/backends/cpu/cpu_backend.h"
#include "engine/exec/captured_plans.h"
#include "engine/exec/engine.h"
#include "engine/profiler/advice.h"
#include "engine/profiler/compact.h"
#include "tests/support/backend/forwarding_backend.h"

namespace ir = tensord::ir;
namespace profiler = tensord::profiler;
using namespace tensord::engine;
using Ints = std::vector<int64_t>;

namespace {

class EmulatedGpu final : public tensord::test::ForwardingBackend {
 public:
  EmulatedGpu()
      : ForwardingBackend(std::make_unique<tensord::cpu::CpuBackend>(1)), info_(inner().info()) {
    info_.kind = "cuda";
    info_.name = "emulated GPU (the CPU backend's kernels)";
  }
  const DeviceInfo& info() const override { return info_; }
  void run(const ir::Node& node, std::span<const TensorValue> inputs,
           std::span<const TensorValue> outputs) override {
    if (!recording_) return inner().run(node, inputs, outputs);
    recording_->work.push_back(
        [this, node, in = std::vector(inputs.begin(), inputs.end()),
         out = std::vector(outputs.begin(), outputs.end())] { inner().run(node, in, out); });
  }
  void copy(Buffer& dst, size_t dst_offset, const Buffer& src, size_t src_offset,
            size_t n) override {
    if (!recording_) return inner().copy(dst, dst_offset, src, src_offset, n);
    recording_->work.push_back([this, &dst, dst_offset, &src, src_offset, n] {
      inner().copy(dst, dst_offset, src, src_offset, n);
    });
  }

  bool can_capture() const override { return true; }
  void begin_capture() override { recording_ = std::make_unique<Recording>(); }
  std::unique_ptr<CapturedRun> end_capture() override {
    if (refuse_capture) recording_.reset();  // as a graph with a host step is
    return std::move(recording_);
  }
  void replay(CapturedRun& run) override {
    for (auto& work : static_cast<Recording&>(run).work) work();
  }

  void trace_step(const RunProfile&, uint32_t step) override { traced_steps.push_back(step); }
  void trace_end(const RunProfile&) override { ++trace_ends; }

  Float32MatmulPrecision float32_matmul_precision() const override { return precision; }
  uint64_t capture_key() const override { return static_cast<uint64_t>(precision); }

  TensorValue upload(float value, Ints shape) {
    ir::TensorType type{ir::DType::Float32, std::move(shape)};
    std::vector<float> data(static_cast<size_t>(type.numel()), value);
    TensorValue v = TensorValue::contiguous(inner().allocate(type.nbytes()), type);
    inner().write(*v.buffer, 0, data.data(), type.nbytes());
    return v;
  }
  std::vector<float> download(const TensorValue& v) {
    std::vector<float> data(static_cast<size_t>(v.type.numel()));
    inner().read(*v.buffer, 0, data.data(), v.type.nbytes());
    return data;
  }

  Float32MatmulPrecision precision = Float32MatmulPrecision::Highest;
  bool refuse_capture = false;  // recordings cannot be replayed
  std::vector<uint32_t> traced_steps;
  int trace_ends = 0;

 private:
  // Copies of the buffers' owners: a recording owns what it touches, as a CUDA graph's pool.
  struct Recording final : CapturedRun {
    std::vector<std::function<void()>> work;
  };
  DeviceInfo info_;
  std::unique_ptr<Recording> recording_;
};

// relu(x + 1) @ w, summed over rows: line 10 the add, 11 the matmul, 12 the sum.
struct Program {
  ir::Graph graph;
  ir::ValueRef y;
  Program() {
    const uint32_t file = graph.intern_file("model.py");
    auto x = graph.add_input(0, {ir::DType::Float32, {32, 32}}, {file, 9});
    auto w = graph.add_input(1, {ir::DType::Float32, {32, 32}}, {file, 9});
    auto one = graph.add(
        ir::Op::full, {},
        {{ir::Attr::shape, Ints{}}, {ir::Attr::value, 1.0}, {ir::Attr::dtype, ir::DType::Float32}},
        {file, 10});
    auto a =
        graph.add(ir::Op::relu, {graph.add(ir::Op::add, {x, one}, {}, {file, 10})}, {}, {file, 10});
    auto m = graph.add(ir::Op::matmul, {a, w}, {}, {file, 11});
    y = graph.add(ir::Op::sum, {m}, {{ir::Attr::axes, Ints{1}}}, {file, 12});
  }
};

struct Runs {
  EmulatedGpu gpu;
  Engine engine{gpu};
  RunProfile profile{std::make_shared<profiler::Profiler>(1),
                     std::make_shared<profiler::MemoryLedger>(), 0};
  TensorValue x = gpu.upload(0.5f, {32, 32});
  TensorValue w = gpu.upload(0.25f, {32, 32});

  Runs() { profile.profiler->start({.trace = true, .memory = true}); }

  // `n` runs as requests 1..n; the outputs of the last.
  std::vector<float> run(int n, CompileMode mode) {
    std::vector<float> last;
    for (int i = 1; i <= n; ++i) {
      profile.request = static_cast<uint64_t>(i);
      Program p;
      auto out = engine.run(p.graph, std::vector{x, w}, std::vector{p.y}, mode, &profile);
      REQUIRE(out.size() == 1);
      last = gpu.download(out[0]);
    }
    return last;
  }

  profiler::Trace trace() {
    profiler::Trace t;
    profiler::Pending pending;
    while (profile.profiler->drain(pending, 1 << 20)) {
      t.append_chunk(profiler::encode_chunk(pending, 1));
    }
    return t;
  }
};

bool is(const profiler::Record& r, profiler::Stage s) {
  return r.kind == profiler::RecordKind::Span && static_cast<profiler::Stage>(r.stage) == s;
}

bool has_rule(const profiler::Trace& t, const std::string& rule) {
  for (const auto& r : profiler::recommend(t)) {
    if (r.rule == rule) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("a profiled reduce-overhead run on a GPU stays a replay") {
  Runs runs;
  const std::vector<float> y = runs.run(4, CompileMode::ReduceOverhead);
  REQUIRE(y.size() == 32);
  CHECK(y[0] == Approx(32 * 32 * 1.5 * 0.25));      // sum over 32 columns of 32 products
  CHECK(runs.engine.capture_stats().replays == 3);  // runs 2 (recorded), 3 and 4

  const profiler::Trace t = runs.trace();
  for (uint64_t request = 1; request <= 4; ++request) {
    INFO("request " << request);
    int executes = 0, steps = 0, allocs = 0;
    for (const auto& r : t.records) {
      if (r.request != request) continue;
      if (is(r, profiler::Stage::Execute)) {
        ++executes;
        CHECK((r.flags & profiler::kOnGpu) != 0);
        CHECK(((r.flags & profiler::kGraphCaptured) != 0) == (request >= 2));
      }
      if (is(r, profiler::Stage::Step)) {
        ++steps;
        CHECK((r.flags & profiler::kOnGpu) != 0);
      }
      if (r.kind == profiler::RecordKind::Alloc && r.line == 12) ++allocs;  // the output
    }
    CHECK(executes == 1);
    CHECK((steps > 0) == (request == 1));  // a replay has no host steps
    CHECK(allocs == 1);                    // replayed outputs are booked to their step's line
  }
  // The first run traced its steps; each replay traced its device work as one step.
  const auto replays =
      std::count(runs.gpu.traced_steps.begin(), runs.gpu.traced_steps.end(), kReplayStep);
  CHECK(replays == 3);
  CHECK(runs.gpu.trace_ends == 4);
  CHECK(runs.profile.ledger->totals().live_bytes == 0);  // every output has gone
  CHECK_FALSE(has_rule(t, "cuda_graph"));
}

TEST_CASE("float32 matmul steps on a GPU at highest precision carry the tf32 tag") {
  for (auto precision : {Float32MatmulPrecision::Highest, Float32MatmulPrecision::High}) {
    Runs runs;
    runs.gpu.precision = precision;
    runs.run(1, CompileMode::Eager);
    const profiler::Trace t = runs.trace();
    int matmuls = 0;
    for (const auto& r : t.records) {
      if (!is(r, profiler::Stage::Step)) continue;
      const bool matmul = t.str(r.name) == "matmul";
      matmuls += matmul;
      const bool tagged = (r.flags & profiler::kF32Highest) != 0;
      CHECK(tagged == (matmul && precision == Float32MatmulPrecision::Highest));
    }
    CHECK(matmuls == 1);
  }
}

TEST_CASE("the cuda_graph rule fires on a plan repeated on a GPU without capture") {
  Runs runs;
  runs.run(12, CompileMode::Default);
  CHECK(has_rule(runs.trace(), "cuda_graph"));
}

TEST_CASE("a plan reduce-overhead declines is noted on its runs, and cuda_graph stays silent") {
  // x + 1 on 1024 x 1024 floats: a step or two whose replay would copy 4 MiB in and 4 MiB out, more
  // than their launches save (kCaptureBytesPerStep a step): reduce-overhead runs it as usual.
  EmulatedGpu gpu;
  Engine engine(gpu);
  RunProfile profile{std::make_shared<profiler::Profiler>(1), nullptr, 0};
  profile.profiler->start({.trace = true});
  const TensorValue x = gpu.upload(1.0f, {1024, 1024});
  auto run = [&](int n, CompileMode mode) {
    for (int i = 0; i < n; ++i) {
      ++profile.request;
      ir::Graph g;
      const uint32_t file = g.intern_file("big.py");
      auto in = g.add_input(0, {ir::DType::Float32, {1024, 1024}}, {file, 3});
      auto one = g.add(ir::Op::full, {},
                       {{ir::Attr::shape, Ints{}},
                        {ir::Attr::value, 1.0},
                        {ir::Attr::dtype, ir::DType::Float32}},
                       {file, 4});
      auto y = g.add(ir::Op::add, {in, one}, {}, {file, 4});
      auto out = engine.run(g, std::vector{x}, std::vector{y}, mode, &profile);
      REQUIRE(gpu.download(out[0])[7] == 2.0f);
    }
  };
  profiler::Trace t;  // one string table across drains
  auto drain = [&] {
    profiler::Pending pending;
    while (profile.profiler->drain(pending, 1 << 20)) {
      t.append_chunk(profiler::encode_chunk(pending, 1));
    }
  };
  run(12, CompileMode::ReduceOverhead);
  CHECK(engine.capture_stats().captures == 0);
  CHECK(engine.capture_stats().replays == 0);
  drain();
  int executes = 0;
  for (const auto& r : t.records) {
    if (!is(r, profiler::Stage::Execute)) continue;
    ++executes;
    CHECK((r.flags & profiler::kGraphCaptured) == 0);
    CHECK(r.id == static_cast<uint64_t>(profiler::CaptureNote::TooLarge));
    CHECK(r.bytes == 2 * 1024 * 1024 * 4);  // the copies a replay would make: input and output
  }
  CHECK(executes == 12);
  CHECK_FALSE(has_rule(t, "cuda_graph"));

  // The same plan, repeated outside reduce-overhead mode: capturing was never tried, the rule
  // advises it (and the runs carry no note).
  run(12, CompileMode::Default);
  drain();
  std::erase_if(t.records, [](const profiler::Record& r) { return r.request <= 12; });
  for (const auto& r : t.records) {
    if (is(r, profiler::Stage::Execute)) CHECK(r.id == 0);
  }
  CHECK(has_rule(t, "cuda_graph"));
}

TEST_CASE("a plan whose recording cannot be replayed is noted, and cuda_graph stays silent") {
  Runs runs;
  runs.gpu.refuse_capture = true;
  runs.run(12, CompileMode::ReduceOverhead);
  CHECK(runs.engine.capture_stats().failures == 1);
  CHECK(runs.engine.capture_stats().replays == 0);
  const profiler::Trace t = runs.trace();
  int unusable = 0;
  for (const auto& r : t.records) {
    if (!is(r, profiler::Stage::Execute)) continue;
    // The first run is not recorded yet (the second records): no note on it.
    const auto want =
        r.request == 1 ? profiler::CaptureNote::None : profiler::CaptureNote::Unusable;
    CHECK(r.id == static_cast<uint64_t>(want));
    unusable += r.id == static_cast<uint64_t>(profiler::CaptureNote::Unusable);
  }
  CHECK(unusable == 11);
  CHECK_FALSE(has_rule(t, "cuda_graph"));
}

TEST_CASE("on the CPU, runs and steps carry no GPU tags") {
  tensord::cpu::CpuBackend cpu(1);
  Engine engine(cpu);
  RunProfile profile{std::make_shared<profiler::Profiler>(1), nullptr, 1};
  profile.profiler->start({.trace = true});
  ir::TensorType type{ir::DType::Float32, {32, 32}};
  TensorValue x = TensorValue::contiguous(cpu.allocate(type.nbytes()), type);
  std::vector<float> zeros(32 * 32, 0.0f);
  cpu.write(*x.buffer, 0, zeros.data(), type.nbytes());
  Program p;
  engine.run(p.graph, std::vector{x, x}, std::vector{p.y}, CompileMode::ReduceOverhead, &profile);
  profiler::Pending pending;
  profile.profiler->drain(pending, 1 << 20);
  int spans = 0;
  for (const auto& r : pending.records) {
    if (!is(r, profiler::Stage::Execute) && !is(r, profiler::Stage::Step)) continue;
    ++spans;
    CHECK(r.flags == 0);
  }
  CHECK(spans >= 3);
}
