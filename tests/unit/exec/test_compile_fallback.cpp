// A fused plan whose generated kernels do not compile (a generator bug, or the host compiler's:
// GCC 12 once stopped with an internal compiler error on a valid kernel) runs unfused: the
// user's run gives eager's results, a reproducer is left as for any internal error, explain says
// why, and the plan cache keeps the unfused plan so that nothing is compiled again.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "engine/backends/cpu/cpu_backend.h"
#include "engine/cache/kernel_cache.h"
#include "engine/exec/engine.h"
#include "engine/exec/explain.h"
#include "engine/exec/reproducer.h"

namespace tensord::engine {
namespace {

TEST_CASE("kernels that do not compile leave a reproducer and the graph runs unfused") {
  cache::KernelCacheOptions options;
  options.compiler.command = "false";  // runs, and fails every compile
  auto kernels = std::make_shared<cache::KernelCache>(options);
  cpu::CpuBackend cpu(1, kernels);
  std::vector<std::string> reproducers;
  EngineOptions engine_options;
  engine_options.on_internal_error = [&](const std::string& r) {
    reproducers.push_back(r);
    return "/reproducers/" + std::to_string(reproducers.size()) + ".json";
  };
  Engine engine(cpu, engine_options);

  ir::Graph g;
  const ir::TensorType t{ir::DType::Float32, ir::Shape{5}};
  const ir::ValueRef y = g.add(ir::Op::neg, {g.add(ir::Op::exp, {g.add_input(0, t)})});
  TensorValue x = TensorValue::contiguous(cpu.allocate(t.nbytes()), t);
  for (int i = 0; i < 5; ++i) x.data<float>()[i] = static_cast<float>(i) - 2.0f;
  const std::vector<TensorValue> inputs{x};
  const std::vector<ir::ValueRef> outputs{y};

  const std::vector<TensorValue> eager = engine.run(g, inputs, outputs, CompileMode::Eager);
  for (int round = 0; round < 2; ++round) {
    const std::vector<TensorValue> fused = engine.run(g, inputs, outputs, CompileMode::Default);
    for (int i = 0; i < 5; ++i) CHECK(fused[0].data<float>()[i] == eager[0].data<float>()[i]);
  }
  // One reproducer, one fallback: the second run found the unfused plan in the cache.
  REQUIRE(reproducers.size() == 1);
  CHECK(engine.stats().unfused_after_compile_error == 1);
  const Reproducer r = parse_reproducer(reproducers[0]);
  CHECK(r.mode == CompileMode::Default);
  CHECK(r.error.find("compile") != std::string::npos);

  const std::vector<ir::TensorType> types{t};
  const Explanation e = explain(engine, g, types, outputs, CompileMode::Default);
  CHECK(e.groups.empty());
  INFO(e.text());
  CHECK(e.text().find("runs unfused: its fused kernels did not compile") != std::string::npos);
  CHECK(e.text().find("(reproducer: /reproducers/1.json)") != std::string::npos);
}

}  // namespace
}  // namespace tensord::engine
