#include "tests/unit/fusion/fusion_support.h"

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <random>

namespace tensord::fusion_test {

ir::ValueRef TestGraph::input(const ir::Shape& shape, float lo, float hi) {
  const ir::TensorType t{ir::DType::Float32, shape};
  const auto index = static_cast<uint32_t>(values.size());
  std::mt19937 rng(1234 + index);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(static_cast<size_t>(t.numel()));
  for (float& x : v) x = dist(rng);
  values.push_back(std::move(v));
  types.push_back(t);
  return graph.add_input(index, t);
}

TempDir::TempDir() {
  std::string templ = (std::filesystem::temp_directory_path() / "tensord-test-XXXXXX").string();
  if (!mkdtemp(templ.data())) throw std::runtime_error("mkdtemp failed");
  path_ = templ;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

namespace {

// A kernel that does not compile fails the test: the engine's default (run the graph unfused)
// would give eager's values, and every "fused equals eager" check would pass.
engine::EngineOptions strict_options() {
  engine::EngineOptions options;
  options.unfused_on_compile_error = false;
  return options;
}

}  // namespace

FusedEngine::FusedEngine(const std::string& dir)
    : kernels(std::make_shared<cache::KernelCache>(cache::KernelCacheOptions{dir, {}})),
      backend(2, kernels),
      engine(backend, strict_options()) {}

std::vector<std::vector<float>> run(engine::Engine& e, const TestGraph& g,
                                    const std::vector<ir::ValueRef>& outputs,
                                    engine::CompileMode mode) {
  std::vector<engine::TensorValue> inputs;
  for (size_t i = 0; i < g.values.size(); ++i) {
    auto buffer = e.backend().allocate(g.values[i].size() * sizeof(float));
    e.backend().write(*buffer, 0, g.values[i].data(), g.values[i].size() * sizeof(float));
    inputs.push_back(engine::TensorValue::contiguous(std::move(buffer), g.types[i]));
  }
  std::vector<engine::TensorValue> out = e.run(g.graph, inputs, outputs, mode);
  std::vector<std::vector<float>> result;
  for (const engine::TensorValue& v : out) {
    std::vector<float> host(static_cast<size_t>(v.type.numel()));
    e.backend().read(*v.buffer, 0, host.data(), host.size() * sizeof(float));
    result.push_back(std::move(host));
  }
  return result;
}

double max_rel_diff(const std::vector<float>& a, const std::vector<float>& b) {
  double worst = a.size() == b.size() ? 0 : INFINITY;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    worst = std::max(worst, std::fabs(double(a[i]) - b[i]) / (1 + std::fabs(double(b[i]))));
  }
  return worst;
}

}  // namespace tensord::fusion_test
