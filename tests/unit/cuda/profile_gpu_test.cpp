// A profiled run on a GPU: CUPTI's records of the kernels each step launched reach the
// profile with the step and request that launched them, on the GPU stream's thread, and with
// device times inside the run, once the backend's traces are flushed (as a profile's stop
// does: CuptiTracer collects them in batches).
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "engine/backends/cuda/cuda_backend.h"
#include "engine/exec/engine.h"

namespace tensord::cuda::test {
namespace {

TEST_CASE("kernels of a profiled run carry their step, geometry and device times") {
  CudaBackend cuda(discover_cuda_devices().devices.at(0));
  engine::Engine engine(cuda);
  ir::Graph g;
  auto x = g.add_input(0, {ir::DType::Float32, ir::Shape{1024, 512}});
  auto y = g.add(ir::Op::exp, {g.add(ir::Op::neg, {x})});
  std::vector<ir::ValueRef> outs{
      g.add(ir::Op::sum, {y}, {{ir::Attr::axes, std::vector<int64_t>{1}}})};
  std::vector<float> host(1024 * 512, 0.5f);
  auto buffer = cuda.allocate(host.size() * sizeof(float));
  cuda.write(*buffer, 0, host.data(), host.size() * sizeof(float));
  std::vector<engine::TensorValue> in{
      engine::TensorValue::contiguous(buffer, {ir::DType::Float32, ir::Shape{1024, 512}})};

  engine::RunProfile profile;
  profile.profiler = std::make_shared<profiler::Profiler>(1);
  profile.profiler->start({});
  profile.request = profile.profiler->next_request();
  const int64_t before = profile.profiler->now();
  engine.run(g, in, outs, engine::CompileMode::Eager, &profile);
  // A second run of another request: records are collected in batches, both by one flush
  // (what a profile's stop does), each with its own request.
  engine::RunProfile second = profile;
  second.request = profile.profiler->next_request();
  engine.run(g, in, outs, engine::CompileMode::Eager, &second);
  cuda.trace_flush();
  const int64_t after = profile.profiler->now();

  profiler::Pending pending;
  profile.profiler->drain(pending, 1 << 20);
  int kernels = 0, second_kernels = 0;
  for (const profiler::Record& r : pending.records) {
    if (r.kind != profiler::RecordKind::Kernel) continue;
    if (r.request == second.request) {
      ++second_kernels;
      continue;
    }
    ++kernels;
    INFO("kernel " << pending.strings.at(r.name - pending.first_string));
    CHECK(r.request == profile.request);
    CHECK(r.id < 3);  // one of the plan's three steps
    CHECK(r.thread >= profiler::kGpuStreamThread);
    CHECK(r.block[0] > 0);
    CHECK(r.grid[0] > 0);
    CHECK(r.dur_ns > 0);
    // Device clocks mapped onto the profile's: inside the run, give or take a millisecond.
    CHECK(r.start_ns >= before - 1'000'000);
    CHECK(r.start_ns + r.dur_ns <= after + 1'000'000);
    CHECK(r.occupancy_permille > 0);
  }
  INFO(cuda.device_trace_status());
  CHECK(kernels == 3);  // neg, exp, sum: one kernel each in eager mode
  CHECK(second_kernels == 3);
}

}  // namespace
}  // namespace tensord::cuda::test
