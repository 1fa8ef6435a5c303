// A new eager plan's loop-IR kernels compiled together (CudaBackend::prepare, loop_ir_batch.h)
// on a device: fewer NVRTC programs than kernels, the right values, and a second backend on the
// same cache directory (a second daemon) compiling nothing.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <vector>

#include "engine/backends/cuda/cuda_backend.h"
#include "engine/exec/engine.h"

namespace tensord::cuda::test {
namespace {

namespace fs = std::filesystem;

constexpr int64_t kN = 1000;

// tanh(x) + exp(-x), times x, and its sum: six loop-IR kernels when run eagerly.
ir::Graph program(std::vector<ir::ValueRef>& outputs) {
  ir::Graph g;
  const auto x = g.add_input(0, ir::TensorType{ir::DType::Float32, ir::Shape{kN}});
  const auto d =
      g.add(ir::Op::add, {g.add(ir::Op::exp, {g.add(ir::Op::neg, {x})}), g.add(ir::Op::tanh, {x})});
  const auto e = g.add(ir::Op::mul, {d, x});
  outputs = {e, g.add(ir::Op::sum, {e})};
  return g;
}

std::vector<float> run_once(CudaBackend& cuda, const std::vector<float>& host) {
  engine::Engine engine(cuda);
  auto buffer = cuda.allocate(host.size() * sizeof(float));
  cuda.write(*buffer, 0, host.data(), host.size() * sizeof(float));
  std::vector<engine::TensorValue> in{
      engine::TensorValue::contiguous(buffer, {ir::DType::Float32, ir::Shape{kN}})};
  std::vector<ir::ValueRef> outs;
  ir::Graph g = program(outs);
  const std::vector<engine::TensorValue> out =
      engine.run(std::move(g), in, outs, engine::CompileMode::Eager);
  std::vector<float> got(kN + 1);
  cuda.read(*out[0].buffer, 0, got.data(), kN * sizeof(float));
  cuda.read(*out[1].buffer, 0, got.data() + kN, sizeof(float));
  return got;
}

}  // namespace

TEST_CASE("a new eager plan's kernels compile together and load by their own keys") {
  const std::string dir =
      (fs::temp_directory_path() / ("tensord_batch_gpu_" + std::to_string(getpid()))).string();
  std::vector<float> host(kN);
  double want_sum = 0;
  std::vector<float> want(kN);
  for (int64_t i = 0; i < kN; ++i) {
    host[i] = std::sin(0.01f * static_cast<float>(i));
    want[i] = (std::tanh(host[i]) + std::exp(-host[i])) * host[i];
    want_sum += want[i];
  }
  CudaBackendOptions options;
  options.kernel_cache_dir = dir;
  uint64_t kernels = 0;
  {
    CudaBackend cuda(discover_cuda_devices().devices.at(0), options);
    const std::vector<float> got = run_once(cuda, host);
    for (int64_t i = 0; i < kN; ++i) {
      INFO("element " << i);
      REQUIRE(std::abs(got[i] - want[i]) <= 1e-5f * (1 + std::abs(want[i])));
    }
    CHECK(std::abs(got[kN] - want_sum) <= 1e-3 * (1 + std::abs(want_sum)));
    const cache::KernelCacheStats stats = *cuda.own_kernel_cache_stats();
    CHECK(stats.misses == 6);   // neg, exp, tanh, add, mul, sum
    CHECK(stats.compiles < 6);  // in fewer NVRTC programs
    CHECK(stats.disk_hits == 0);
    kernels = stats.misses;
  }
  {
    CudaBackend second(discover_cuda_devices().devices.at(0), options);
    const std::vector<float> got = run_once(second, host);
    CHECK(std::abs(got[kN] - want_sum) <= 1e-3 * (1 + std::abs(want_sum)));
    const cache::KernelCacheStats stats = *second.own_kernel_cache_stats();
    CHECK(stats.compiles == 0);
    CHECK(stats.disk_hits == kernels);  // each by its own key
  }
  std::error_code ec;
  fs::remove_all(dir, ec);
}

}  // namespace tensord::cuda::test
