// The matmul epilogue decision on a GPU (engine/backends/cuda/epilogue_tuning.h): the first run
// of relu(a @ w + bias) in a fusing mode measures cuBLASLt's epilogue against the matmul then the
// chain's kernel, keeps the winner in the kernel cache directory's `tune/`, and a second backend
// on that directory reads it without measuring. Both agree with a host loop.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "engine/backends/cuda/cuda_backend.h"
#include "engine/exec/engine.h"

namespace tensord::cuda::test {
namespace {

namespace fs = std::filesystem;

class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "td-cuda-epilogue-XXXXXX").string();
    if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

size_t epilogue_files(const std::string& dir) {
  size_t n = 0;
  if (!fs::exists(dir + "/tune")) return 0;
  for (const auto& e : fs::directory_iterator(dir + "/tune")) {
    n += e.path().filename().string().rfind("cuda-matmul-epilogue-", 0) == 0;
  }
  return n;
}

constexpr int64_t M = 64, K = 96, N = 80;

engine::TensorValue upload(CudaBackend& cuda, const std::vector<float>& host,
                           std::vector<int64_t> shape) {
  auto buffer = cuda.allocate(host.size() * sizeof(float));
  cuda.write(*buffer, 0, host.data(), host.size() * sizeof(float));
  return engine::TensorValue::contiguous(buffer, {ir::DType::Float32, ir::Shape(shape)});
}

// relu(a @ w + bias) in a mode that fuses matmul epilogues, on the host.
std::vector<float> run(CudaBackend& cuda, const std::vector<float>& a, const std::vector<float>& w,
                       const std::vector<float>& bias) {
  engine::Engine engine(cuda);
  ir::Graph g;
  auto x = g.add_input(0, {ir::DType::Float32, ir::Shape{M, K}});
  auto y = g.add_input(1, {ir::DType::Float32, ir::Shape{K, N}});
  auto c = g.add_input(2, {ir::DType::Float32, ir::Shape{N}});
  const ir::ValueRef out =
      g.add(ir::Op::relu, {g.add(ir::Op::add, {g.add(ir::Op::matmul, {x, y}), c})});
  std::vector<engine::TensorValue> in{upload(cuda, a, {M, K}), upload(cuda, w, {K, N}),
                                      upload(cuda, bias, {N})};
  const std::vector<engine::TensorValue> got =
      engine.run(std::move(g), in, {&out, 1}, engine::CompileMode::Default);
  REQUIRE(got.size() == 1);
  REQUIRE(got[0].is_contiguous());
  std::vector<float> host(static_cast<size_t>(M * N));
  cuda.read(*got[0].buffer, static_cast<size_t>(got[0].offset) * sizeof(float), host.data(),
            host.size() * sizeof(float));
  return host;
}

}  // namespace

TEST_CASE("the matmul epilogue decision is kept on disk and a second backend reads it",
          "[gpu][epilogue]") {
  TempDir dir;
  const CudaDeviceProperties device = discover_cuda_devices().devices.at(0);
  std::vector<float> a(M * K), w(K * N), bias(N), want(M * N);
  for (size_t i = 0; i < a.size(); ++i) a[i] = std::sin(0.01f * float(i));
  for (size_t i = 0; i < w.size(); ++i) w[i] = std::cos(0.02f * float(i));
  for (size_t i = 0; i < bias.size(); ++i) bias[i] = 0.1f * float(i % 7) - 0.3f;
  for (int64_t m = 0; m < M; ++m) {
    for (int64_t n = 0; n < N; ++n) {
      double s = bias[n];
      for (int64_t k = 0; k < K; ++k) s += double(a[m * K + k]) * double(w[k * N + n]);
      want[m * N + n] = static_cast<float>(std::max(s, 0.0));
    }
  }
  const auto agrees = [&](const std::vector<float>& got) {
    REQUIRE(got.size() == want.size());
    for (size_t i = 0; i < got.size(); ++i) {
      INFO("element " << i);
      CHECK(std::abs(got[i] - want[i]) <= 1e-3 * (1 + std::abs(want[i])));
    }
  };
  {
    CudaBackend cuda(device, CudaBackendOptions{.kernel_cache_dir = dir.path()});
    agrees(run(cuda, a, w, bias));
    CHECK(cuda.epilogue_tuning_stats().measured == 1);
    CHECK(epilogue_files(dir.path()) == 1);
    agrees(run(cuda, a, w, bias));
    CHECK(cuda.epilogue_tuning_stats().measured == 1);  // remembered
  }
  CudaBackend second(device, CudaBackendOptions{.kernel_cache_dir = dir.path()});
  agrees(run(second, a, w, bias));
  CHECK(second.epilogue_tuning_stats().measured == 0);
  CHECK(second.epilogue_tuning_stats().from_disk == 1);
  CHECK(second.epilogue_tuning_stats().fused_runs + second.epilogue_tuning_stats().unfused_runs ==
        1);
}

}  // namespace tensord::cuda::test
