// Repeated plans on a GPU in reduce-overhead mode: the second run records a CUDA graph, later
// runs replay it, and every run's outputs are its own (a replay never overwrites what an
// earlier run returned). Eager runs of the same graph are the reference.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "engine/backends/cuda/cuda_backend.h"
#include "engine/exec/engine.h"

namespace tensord::cuda::test {
namespace {

using Ints = std::vector<int64_t>;

engine::TensorValue upload(CudaBackend& cuda, const std::vector<float>& host, Ints shape) {
  auto buffer = cuda.allocate(host.size() * sizeof(float));
  cuda.write(*buffer, 0, host.data(), host.size() * sizeof(float));
  return engine::TensorValue::contiguous(buffer, {ir::DType::Float32, ir::Shape(shape)});
}

std::vector<float> download(CudaBackend& cuda, const engine::TensorValue& v) {
  std::vector<float> out(static_cast<size_t>(v.type.numel()));
  REQUIRE(v.is_contiguous());
  cuda.read(*v.buffer, static_cast<size_t>(v.offset) * sizeof(float), out.data(),
            out.size() * sizeof(float));
  return out;
}

// softmax(x * 2 + 1) over rows, and the row sums of exp(x): fused groups and reductions.
ir::Graph program(std::vector<ir::ValueRef>& outputs) {
  ir::Graph g;
  const ir::TensorType t{ir::DType::Float32, ir::Shape{64, 300}};
  auto x = g.add_input(0, t);
  auto two = g.add(
      ir::Op::full, {},
      {{ir::Attr::value, 2.0}, {ir::Attr::shape, Ints{}}, {ir::Attr::dtype, ir::DType::Float32}});
  auto one = g.add(
      ir::Op::full, {},
      {{ir::Attr::value, 1.0}, {ir::Attr::shape, Ints{}}, {ir::Attr::dtype, ir::DType::Float32}});
  auto y = g.add(ir::Op::add, {g.add(ir::Op::mul, {x, two}), one});
  outputs = {g.add(ir::Op::softmax, {y}, {{ir::Attr::axis, int64_t{1}}}),
             g.add(ir::Op::sum, {g.add(ir::Op::exp, {x})}, {{ir::Attr::axes, Ints{1}}})};
  return g;
}

std::vector<float> input_values(int run) {
  std::vector<float> v(64 * 300);
  for (size_t i = 0; i < v.size(); ++i) v[i] = std::sin(0.01f * float(i) + float(run));
  return v;
}

TEST_CASE("reduce-overhead records a repeated plan once and replays it with fresh outputs") {
  CudaBackend cuda(discover_cuda_devices().devices.at(0));
  engine::Engine engine(cuda);
  std::vector<ir::ValueRef> outs;
  std::vector<std::vector<engine::TensorValue>> results;
  for (int run = 0; run < 4; ++run) {
    std::vector<engine::TensorValue> in{upload(cuda, input_values(run), {64, 300})};
    ir::Graph g = program(outs);  // fills `outs`: not in the same call (unsequenced)
    results.push_back(engine.run(std::move(g), in, outs, engine::CompileMode::ReduceOverhead));
  }
  CHECK(engine.capture_stats().captures == 1);
  CHECK(engine.capture_stats().replays == 3);  // the recording run is replayed too
  CHECK(engine.capture_stats().failures == 0);
  for (int run = 0; run < 4; ++run) {
    std::vector<engine::TensorValue> in{upload(cuda, input_values(run), {64, 300})};
    ir::Graph g = program(outs);
    const std::vector<engine::TensorValue> want =
        engine.run(std::move(g), in, outs, engine::CompileMode::Eager);
    for (size_t o = 0; o < want.size(); ++o) {
      const std::vector<float> a = download(cuda, results[run][o]);
      const std::vector<float> b = download(cuda, want[o]);
      REQUIRE(a.size() == b.size());
      for (size_t i = 0; i < a.size(); ++i) {
        INFO("run " << run << " output " << o << " element " << i);
        REQUIRE(std::abs(a[i] - b[i]) <= 1e-5f * (1 + std::abs(b[i])));
      }
    }
  }
}

TEST_CASE("a recording made on one session's stream is replayed on another's, in order") {
  CudaBackend cuda(discover_cuda_devices().devices.at(0));
  engine::Engine engine(cuda);
  std::vector<ir::ValueRef> outs;
  std::vector<std::vector<engine::TensorValue>> results;
  // No host sync between runs: sessions 1 and 2 take turns on the one recording (its input and
  // output buffers), each replay ordered after the other stream's last one.
  for (int run = 0; run < 6; ++run) {
    cuda.set_session(1 + run % 2);
    std::vector<engine::TensorValue> in{upload(cuda, input_values(run), {64, 300})};
    ir::Graph g = program(outs);
    results.push_back(engine.run(std::move(g), in, outs, engine::CompileMode::ReduceOverhead));
  }
  CHECK(cuda.session_streams_created() == 2);
  CHECK(engine.capture_stats().captures == 1);
  CHECK(engine.capture_stats().failures == 0);
  CHECK(engine.capture_stats().replays == 5);
  cuda.set_session(0);
  for (int run = 0; run < 6; ++run) {
    std::vector<engine::TensorValue> in{upload(cuda, input_values(run), {64, 300})};
    ir::Graph g = program(outs);
    const std::vector<engine::TensorValue> want =
        engine.run(std::move(g), in, outs, engine::CompileMode::Eager);
    for (size_t o = 0; o < want.size(); ++o) {
      const std::vector<float> a = download(cuda, results[run][o]);
      const std::vector<float> b = download(cuda, want[o]);
      REQUIRE(a.size() == b.size());
      for (size_t i = 0; i < a.size(); ++i) {
        INFO("run " << run << " output " << o << " element " << i);
        REQUIRE(std::abs(a[i] - b[i]) <= 1e-5f * (1 + std::abs(b[i])));
      }
    }
  }
}

TEST_CASE("a one-kernel plan is recorded and replayed too") {
  CudaBackend cuda(discover_cuda_devices().devices.at(0));
  engine::Engine engine(cuda);
  ir::Graph g;
  auto x = g.add_input(0, {ir::DType::Float32, ir::Shape{4}});
  auto out = g.add(ir::Op::exp, {x});
  std::vector<ir::ValueRef> outs{out};
  for (int run = 0; run < 3; ++run) {
    std::vector<engine::TensorValue> in{upload(cuda, {0, 1, 2, 3}, {4})};
    const auto r = engine.run(g, in, outs, engine::CompileMode::ReduceOverhead);
    const std::vector<float> got = download(cuda, r[0]);
    CHECK(std::abs(got[3] - std::exp(3.0f)) < 1e-4f);
  }
  CHECK(engine.capture_stats().captures == 1);
  CHECK(engine.capture_stats().replays == 2);
}

}  // namespace
}  // namespace tensord::cuda::test
