// Shared by the fusion tests: graphs of float32 tensors run on the CPU backend, with and
// without fusion.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/backends/cpu/cpu_backend.h"
#include "engine/cache/kernel_cache.h"
#include "engine/exec/engine.h"

namespace tensord::fusion_test {

// A graph under construction with its float32 inputs' values.
struct TestGraph {
  ir::Graph graph;
  std::vector<std::vector<float>> values;
  std::vector<ir::TensorType> types;

  ir::ValueRef input(const ir::Shape& shape, float lo = -2, float hi = 2);
  ir::ValueRef add(ir::Op op, std::vector<ir::ValueRef> in, ir::Attrs attrs = {}) {
    return graph.add(op, std::move(in), std::move(attrs));
  }
  ir::ValueRef scalar(double v) {
    return graph.add(ir::Op::full, {},
                     {{ir::Attr::shape, ir::Shape{}},
                      {ir::Attr::value, v},
                      {ir::Attr::dtype, ir::DType::Float32}});
  }
};

// A fresh directory under the system's temporary one, removed with the object.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// An engine on a CPU backend with a kernel cache in `dir` ("" private). A generated kernel that
// does not compile throws from its run (EngineOptions::unfused_on_compile_error off).
struct FusedEngine {
  explicit FusedEngine(const std::string& dir = "");
  std::shared_ptr<cache::KernelCache> kernels;
  cpu::CpuBackend backend;
  engine::Engine engine;
};

// Runs `g` computing `outputs` in `mode` and returns each output's float32 values.
std::vector<std::vector<float>> run(engine::Engine& e, const TestGraph& g,
                                    const std::vector<ir::ValueRef>& outputs,
                                    engine::CompileMode mode = engine::CompileMode::Default);

// The largest |a - b| / (1 + |b|).
double max_rel_diff(const std::vector<float>& a, const std::vector<float>& b);

}  // namespace tensord::fusion_test
