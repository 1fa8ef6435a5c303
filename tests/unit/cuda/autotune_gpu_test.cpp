// max-autotune on a GPU (engine/backends/cuda/launch_tuning.h): a session in that mode times
// the launch configurations of its new fused kernels, keeps the winners in the kernel cache
// directory's `tune/`, and a second backend on that directory reads them instead of timing.
// Every choice computes the same bits as the default configuration.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "engine/backends/cuda/cuda_backend.h"
#include "engine/exec/engine.h"

namespace tensord::cuda::test {
namespace {

using Ints = std::vector<int64_t>;
namespace fs = std::filesystem;

class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "td-cuda-autotune-XXXXXX").string();
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

std::vector<std::string> decision_files(const std::string& dir) {
  std::vector<std::string> files;
  if (!fs::exists(dir + "/tune")) return files;
  for (const auto& e : fs::directory_iterator(dir + "/tune")) {
    const std::string name = e.path().filename().string();
    if (name.rfind("cuda-", 0) == 0 && e.path().extension() == ".txt") {
      files.push_back(e.path().string());
    }
  }
  return files;
}

// A pointwise chain over 2^20 elements (sigmoid(x * 2 + 1)) and row reductions of 64 rows of
// 3000 (softmax, and the sums of exp(x)): both kinds of generated kernel.
ir::Graph program(std::vector<ir::ValueRef>& outputs) {
  ir::Graph g;
  auto x = g.add_input(0, {ir::DType::Float32, ir::Shape{1 << 20}});
  auto r = g.add_input(1, {ir::DType::Float32, ir::Shape{64, 3000}});
  auto scalar = [&](double v) {
    return g.add(
        ir::Op::full, {},
        {{ir::Attr::value, v}, {ir::Attr::shape, Ints{}}, {ir::Attr::dtype, ir::DType::Float32}});
  };
  auto y = g.add(ir::Op::add, {g.add(ir::Op::mul, {x, scalar(2.0)}), scalar(1.0)});
  outputs = {g.add(ir::Op::sigmoid, {y}),
             g.add(ir::Op::softmax, {r}, {{ir::Attr::axis, int64_t{1}}}),
             g.add(ir::Op::sum, {g.add(ir::Op::exp, {r})}, {{ir::Attr::axes, Ints{1}}})};
  return g;
}

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

// The outputs of one run of `program` in `mode`, on the host.
std::vector<std::vector<float>> run(CudaBackend& cuda, engine::Engine& engine,
                                    engine::CompileMode mode) {
  std::vector<float> a(1 << 20), b(64 * 3000);
  for (size_t i = 0; i < a.size(); ++i) a[i] = std::sin(0.001f * float(i));
  for (size_t i = 0; i < b.size(); ++i) b[i] = std::cos(0.003f * float(i));
  std::vector<engine::TensorValue> in{upload(cuda, a, {1 << 20}), upload(cuda, b, {64, 3000})};
  std::vector<ir::ValueRef> outs;
  ir::Graph g = program(outs);  // fills `outs`: not in the same call (unsequenced)
  const std::vector<engine::TensorValue> got = engine.run(std::move(g), in, outs, mode);
  std::vector<std::vector<float>> host;
  for (const engine::TensorValue& v : got) host.push_back(download(cuda, v));
  return host;
}

void require_same_bits(const std::vector<std::vector<float>>& a,
                       const std::vector<std::vector<float>>& b) {
  REQUIRE(a.size() == b.size());
  for (size_t o = 0; o < a.size(); ++o) {
    REQUIRE(a[o].size() == b[o].size());
    INFO("output " << o);
    CHECK(std::memcmp(a[o].data(), b[o].data(), a[o].size() * sizeof(float)) == 0);
  }
}

}  // namespace

TEST_CASE("max-autotune stores its launch decisions and a second backend reads them",
          "[gpu][autotune]") {
  TempDir dir;
  const CudaDeviceProperties device = discover_cuda_devices().devices.at(0);
  std::vector<std::vector<float>> reference;
  {
    CudaBackend cuda(device, CudaBackendOptions{.kernel_cache_dir = dir.path()});
    engine::Engine engine(cuda);
    reference = run(cuda, engine, engine::CompileMode::Default);
    CHECK(cuda.launch_tuning_stats().measured == 0);  // default mode times nothing
    CHECK(decision_files(dir.path()).empty());
    const auto tuned = run(cuda, engine, engine::CompileMode::MaxAutotune);
    require_same_bits(tuned, reference);
    CHECK(cuda.launch_tuning_stats().measured >= 2);  // a pointwise and a row kernel at least
    CHECK(decision_files(dir.path()).size() == cuda.launch_tuning_stats().measured);
    const uint64_t measured = cuda.launch_tuning_stats().measured;
    require_same_bits(run(cuda, engine, engine::CompileMode::MaxAutotune), reference);
    CHECK(cuda.launch_tuning_stats().measured == measured);  // remembered
  }
  CudaBackend second(device, CudaBackendOptions{.kernel_cache_dir = dir.path()});
  engine::Engine engine(second);
  require_same_bits(run(second, engine, engine::CompileMode::MaxAutotune), reference);
  CHECK(second.launch_tuning_stats().measured == 0);
  CHECK(second.launch_tuning_stats().from_disk == decision_files(dir.path()).size());
}

TEST_CASE("every launch choice computes the default configuration's bits", "[gpu][autotune]") {
  TempDir dir;
  const CudaDeviceProperties device = discover_cuda_devices().devices.at(0);
  std::vector<std::vector<float>> reference;
  {
    CudaBackend cuda(device, CudaBackendOptions{.kernel_cache_dir = dir.path()});
    engine::Engine engine(cuda);
    reference = run(cuda, engine, engine::CompileMode::Default);
    run(cuda, engine, engine::CompileMode::MaxAutotune);  // writes the decision files
  }
  const std::vector<std::string> files = decision_files(dir.path());
  REQUIRE(files.size() >= 2);
  // Each candidate forced into every decision file, then read by a fresh backend (a row
  // kernel ignores a choice naming a block: fits()).
  for (bool rows : {false, true}) {
    for (const LaunchChoice& c : launch_candidates(rows)) {
      for (const std::string& f : files) {
        std::ofstream(f, std::ios::trunc) << format_choice(c);
      }
      CudaBackend cuda(device, CudaBackendOptions{.kernel_cache_dir = dir.path()});
      engine::Engine engine(cuda);
      INFO("block " << c.block << " steps " << c.steps);
      require_same_bits(run(cuda, engine, engine::CompileMode::MaxAutotune), reference);
      CHECK(cuda.launch_tuning_stats().measured == 0);
      CHECK(cuda.launch_tuning_stats().from_disk == files.size());
    }
  }
}

}  // namespace tensord::cuda::test
