// tensord-replay: reruns a reproducer the daemon wrote (engine/exec/reproducer.h), locally on
// the CPU backend (default) or against a daemon (--address). Exit status 0 when the graph now
// runs, 1 when it fails again (the error is printed), 2 for a bad command line or file.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>

#include "client/cpp/src/recorder.h"
#include "client/cpp/src/tensor_node.h"
#include "engine/backends/cpu/cpu_backend.h"
#include "engine/cache/kernel_cache.h"
#include "engine/exec/engine.h"
#include "engine/exec/reproducer.h"
#include "tensord/client.h"
#include "tools/replay/inputs.h"

namespace {

using namespace tensord;
using tensord::Session;
using tensord::Tensor;

const char* kUsage =
    "usage: tensord-replay [--address ADDRESS] [--mode MODE] [--cache-dir DIR] "
    "[--compiler CMD] FILE\n"
    "Reruns a reproducer locally (default) or on the daemon at ADDRESS. MODE overrides the\n"
    "reproducer's compile mode; DIR (default: in memory) and CMD are for local runs.\n";

void print_outputs(const std::vector<ir::TensorType>& types) {
  for (size_t i = 0; i < types.size(); ++i) {
    std::printf("output %zu: %s\n", i, ir::to_string(types[i]).c_str());
  }
}

int run_local(const engine::Reproducer& r, engine::CompileMode mode, const std::string& dir,
              const std::string& compiler) {
  cache::KernelCacheOptions options;
  options.dir = dir;
  if (!compiler.empty()) options.compiler.command = compiler;
  cpu::CpuBackend backend(0, std::make_shared<cache::KernelCache>(options));
  // A kernel that does not compile fails the replay: that is what it reproduces (the daemon
  // runs such a graph unfused instead).
  engine::EngineOptions strict;
  strict.unfused_on_compile_error = false;
  engine::Engine e(backend, std::move(strict));
  std::vector<engine::TensorValue> inputs;
  for (size_t i = 0; i < r.inputs.size(); ++i) {
    const std::vector<std::byte> bytes = replay::input_bytes(r.inputs[i], i);
    auto buffer = backend.allocate(bytes.size());
    backend.write(*buffer, 0, bytes.data(), bytes.size());
    inputs.push_back(engine::TensorValue::contiguous(std::move(buffer), r.inputs[i]));
  }
  std::vector<engine::TensorValue> out = e.run(r.graph, inputs, r.outputs, mode);
  std::vector<ir::TensorType> types;
  for (const auto& v : out) types.push_back(v.type);
  print_outputs(types);
  return 0;
}

int run_remote(const engine::Reproducer& r, engine::CompileMode mode, const std::string& address) {
  Session s = tensord::connect(address, {"", "tensord-replay"});
  s.set_compile_mode(std::string(engine::name(mode)));
  const std::source_location loc = std::source_location::current();
  // Creation ops need the session's state; any tensor of the session leads to it.
  Tensor anchor = s.from_bytes(ir::DType::Float32, {1}, std::vector<std::byte>(4));
  const auto& state = detail::TensorAccess::node(anchor, loc)->session;
  std::vector<Tensor> values;
  for (const ir::Node& n : r.graph.nodes) {
    if (n.op == ir::Op::input) {
      const auto index = static_cast<size_t>(n.attrs.get_int(ir::Attr::index));
      values.push_back(s.from_bytes(r.inputs[index].dtype, r.inputs[index].shape,
                                    replay::input_bytes(r.inputs[index], index)));
    } else if (n.inputs.empty()) {
      values.push_back(detail::record_creation(state, n.op, n.attrs, loc));
    } else {
      std::vector<Tensor> in;
      for (const ir::ValueRef& ref : n.inputs) in.push_back(values.at(ref.node));
      values.push_back(detail::record(n.op, std::span<const Tensor>(in), n.attrs, loc));
    }
  }
  std::vector<Tensor> outputs;
  std::vector<ir::TensorType> types;
  for (const ir::ValueRef& ref : r.outputs) {
    outputs.push_back(values.at(ref.node));
    types.push_back({outputs.back().dtype(), outputs.back().shape()});
  }
  s.sync(outputs);
  print_outputs(types);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string address, mode_name, dir, compiler, file;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](std::string& out) {
      if (i + 1 >= argc) return false;
      out = argv[++i];
      return true;
    };
    bool ok = true;
    if (a == "--address")
      ok = value(address);
    else if (a == "--mode")
      ok = value(mode_name);
    else if (a == "--cache-dir")
      ok = value(dir);
    else if (a == "--compiler")
      ok = value(compiler);
    else if (a == "--help" || a == "-h")
      return std::fputs(kUsage, stdout), 0;
    else if (!a.starts_with("--") && file.empty())
      file = a;
    else
      ok = false;
    if (!ok) return std::fputs(kUsage, stderr), 2;
  }
  if (file.empty()) return std::fputs(kUsage, stderr), 2;
  std::ifstream in(file);
  if (!in) {
    std::fprintf(stderr, "tensord-replay: cannot read %s\n", file.c_str());
    return 2;
  }
  std::stringstream text;
  text << in.rdbuf();
  engine::Reproducer r;
  try {
    r = engine::parse_reproducer(text.str());
  } catch (const Error& e) {
    std::fprintf(stderr, "tensord-replay: %s: %s\n", file.c_str(), e.what());
    return 2;
  }
  engine::CompileMode mode = r.mode;
  if (!mode_name.empty()) {
    auto m = engine::compile_mode_from_name(mode_name);
    if (!m) return std::fprintf(stderr, "tensord-replay: unknown mode %s\n", mode_name.c_str()), 2;
    mode = *m;
  }
  std::printf("replaying %zu nodes in mode %s (recorded error: %s)\n", r.graph.nodes.size(),
              std::string(engine::name(mode)).c_str(), r.error.c_str());
  try {
    return address.empty() ? run_local(r, mode, dir, compiler) : run_remote(r, mode, address);
  } catch (const Error& e) {
    std::printf("error: %s: %s\n", std::string(name(e.code())).c_str(), e.what());
    return 1;
  } catch (const std::exception& e) {
    std::printf("error: %s\n", e.what());
    return 1;
  }
}
