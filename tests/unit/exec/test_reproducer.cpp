// Reproducers as files (engine/exec/reproducer.h): what a failed run leaves, read back the same,
// its small inputs' bytes included; and the engine keeping those bytes when a run fails.
#include "engine/exec/reproducer.h"

#include <catch2/catch.hpp>

#include <cstring>
#include <string>
#include <vector>

#include "engine/backends/cpu/cpu_backend.h"
#include "engine/cache/kernel_cache.h"
#include "engine/exec/engine.h"

namespace tensord::engine {
namespace {

std::vector<std::byte> bytes_of(std::initializer_list<int> values) {
  std::vector<std::byte> out;
  for (int v : values) out.push_back(static_cast<std::byte>(v));
  return out;
}

TEST_CASE("a reproducer reads back with its kept input bytes") {
  ir::Graph g;
  const ir::TensorType a{ir::DType::UInt8, ir::Shape{4}}, b{ir::DType::UInt8, ir::Shape{5}};
  const ir::TensorType c{ir::DType::Float32, ir::Shape{2}};
  const ir::ValueRef x = g.add_input(0, a);
  g.add_input(1, b);
  g.add_input(2, c);
  const std::vector<ir::TensorType> inputs{a, b, c};
  const std::vector<ir::ValueRef> outputs{
      g.add(ir::Op::neg, {x}, {}, {g.intern_file("/home/me/train.py"), 42})};
  // Lengths 4 and 5 cover both paddings of base64; the third input is not kept.
  const std::vector<InputBytes> values{bytes_of({0, 255, 128, 7}), bytes_of({1, 2, 3, 250, 9}),
                                       std::nullopt};
  const Reproducer r =
      parse_reproducer(reproducer_json(g, inputs, outputs, CompileMode::Eager, "why", values));
  REQUIRE(r.values.size() == 3);
  CHECK(r.values[0] == values[0]);
  CHECK(r.values[1] == values[1]);
  CHECK_FALSE(r.values[2]);
  CHECK(r.inputs == inputs);
  CHECK(r.error == "why");
  // The user's lines come back with the nodes.
  CHECK(r.graph.location(3).file == "/home/me/train.py");
  CHECK(r.graph.location(3).line == 42);
  CHECK(r.graph.location(0).line == 0);

  // Without values, every input is regenerated.
  const Reproducer plain = parse_reproducer(reproducer_json(g, inputs, outputs, r.mode, ""));
  CHECK(plain.values == std::vector<InputBytes>(3));

  // Bytes that do not fit their input are refused.
  std::string wrong = reproducer_json(g, inputs, outputs, r.mode, "", values);
  const std::string kept = "\"AP+ABw==\"";  // {0, 255, 128, 7}
  REQUIRE(wrong.find(kept) != std::string::npos);
  wrong.replace(wrong.find(kept), kept.size(), "\"AP+A\"");
  CHECK_THROWS_WITH(parse_reproducer(wrong), Catch::Contains("input 0 has 3 bytes"));
  std::string no_line = reproducer_json(g, inputs, outputs, r.mode, "");
  no_line.replace(no_line.find("train.py:42"), 11, "train.py:x");
  CHECK_THROWS_WITH(parse_reproducer(no_line), Catch::Contains("not file:line"));
}

TEST_CASE("a run that fails inside the engine keeps its small inputs' bytes") {
  cache::KernelCacheOptions options;
  options.compiler.command = "false";  // every compile fails: Internal
  cpu::CpuBackend cpu(1, std::make_shared<cache::KernelCache>(options));
  std::vector<std::string> reproducers;
  EngineOptions strict;
  strict.unfused_on_compile_error = false;  // as tensord-replay runs: the failure propagates
  strict.on_internal_error = [&](const std::string& r) {
    reproducers.push_back(r);
    return std::string("/var/repro/r1.json");
  };
  Engine engine(cpu, strict);

  ir::Graph g;
  const ir::TensorType small{ir::DType::Float32, ir::Shape{3}};
  const ir::TensorType large{ir::DType::Float32, ir::Shape{int64_t{kReproducerInputBytes / 4 + 1}}};
  const ir::ValueRef y = g.add(ir::Op::exp, {g.add(ir::Op::neg, {g.add_input(0, small)})});
  g.add_input(1, large);
  TensorValue x = TensorValue::contiguous(cpu.allocate(small.nbytes()), small);
  for (int i = 0; i < 3; ++i) x.data<float>()[i] = 0.5f * static_cast<float>(i) - 1.0f;
  TensorValue big = TensorValue::contiguous(cpu.allocate(large.nbytes()), large);
  const std::vector<TensorValue> inputs{x, big};
  const std::vector<ir::ValueRef> outputs{y};
  // The error names where the reproducer went: the user may not see the daemon's log.
  CHECK_THROWS_WITH(engine.run(g, inputs, outputs, CompileMode::Default),
                    Catch::Contains("(reproducer: /var/repro/r1.json)"));
  REQUIRE(reproducers.size() == 1);
  const Reproducer r = parse_reproducer(reproducers[0]);
  REQUIRE(r.values.size() == 2);
  REQUIRE(r.values[0]);
  REQUIRE(r.values[0]->size() == small.nbytes());
  CHECK(std::memcmp(r.values[0]->data(), x.data<float>(), small.nbytes()) == 0);
  CHECK_FALSE(r.values[1]);  // over kReproducerInputBytes
}

}  // namespace
}  // namespace tensord::engine
