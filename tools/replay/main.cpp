// tensord-replay: reruns a reproducer the daemon wrote (engine/exec/reproducer.h), locally on
// the CPU backend (default) or against a daemon (--address), or shrinks it (--shrink,
// tools/replay/shrink.h). Exit status 0 when the graph now runs, 1 when it fails again (the
// error is printed), 2 for a bad command line or file.
#include <cstdio>
#include <exception>
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
#include "tools/replay/shrink.h"

namespace {

using namespace tensord;
using tensord::Session;
using tensord::Tensor;

const char* kUsage =
    "usage: tensord-replay [--address ADDRESS] [--mode MODE] [--cache-dir DIR] "
    "[--compiler CMD] [--shrink OUT] FILE\n"
    "Reruns a reproducer locally (default) or on the daemon at ADDRESS. MODE overrides the\n"
    "reproducer's compile mode; DIR (default: in memory) and CMD are for local runs.\n"
    "--shrink OUT (local only): looks for a smaller graph that fails with the same error code\n"
    "(in the same op, when the error names one) and writes it to OUT as a reproducer.\n"
    "Exit status: 0 it runs, 1 it fails (again), 2 bad command line or file.\n";

void print_outputs(const std::vector<ir::TensorType>& types) {
  for (size_t i = 0; i < types.size(); ++i) {
    std::printf("output %zu: %s\n", i, ir::to_string(types[i]).c_str());
  }
}

// The CPU backend and an engine that runs reproducers in this process. A kernel that does not
// compile fails the run: that is what it reproduces (the daemon runs such a graph unfused
// instead).
class LocalRunner {
 public:
  LocalRunner(const std::string& dir, const std::string& compiler)
      : backend_(0, std::make_shared<cache::KernelCache>(cache_options(dir, compiler))),
        engine_(backend_, strict()) {}

  std::vector<ir::TensorType> run(const engine::Reproducer& r, engine::CompileMode mode) {
    std::vector<engine::TensorValue> inputs;
    for (size_t i = 0; i < r.inputs.size(); ++i) {
      const std::vector<std::byte> bytes = replay::input_bytes(r, i);
      auto buffer = backend_.allocate(bytes.size());
      backend_.write(*buffer, 0, bytes.data(), bytes.size());
      inputs.push_back(engine::TensorValue::contiguous(std::move(buffer), r.inputs[i]));
    }
    std::vector<ir::TensorType> types;
    for (const auto& v : engine_.run(r.graph, inputs, r.outputs, mode)) types.push_back(v.type);
    return types;
  }

 private:
  static cache::KernelCacheOptions cache_options(const std::string& dir,
                                                 const std::string& compiler) {
    cache::KernelCacheOptions options;
    options.dir = dir;
    if (!compiler.empty()) options.compiler.command = compiler;
    return options;
  }
  static engine::EngineOptions strict() {
    engine::EngineOptions options;
    options.unfused_on_compile_error = false;
    return options;
  }

  cpu::CpuBackend backend_;
  engine::Engine engine_;
};

// --shrink: the smallest graph found that fails with the same error code (in the same op, when
// the error names one), written to `out`.
int shrink_local(const engine::Reproducer& r, engine::CompileMode mode, LocalRunner& runner,
                 const std::string& out) {
  tensord::ErrorCode code{};
  std::string op;  // the failing node's op, when the error names one
  try {
    runner.run(r, mode);
    std::printf("it runs: nothing to shrink\n");
    return 0;
  } catch (const Error& e) {
    code = e.code();
    op = e.op();
    std::printf("fails: %s: %s\nshrinking (each attempt runs a smaller graph) ...\n",
                std::string(name(code)).c_str(), e.what());
  }
  std::fflush(stdout);
  replay::ShrinkOptions options;
  options.progress = [](const std::string& line) {
    std::printf("  %s\n", line.c_str());
    std::fflush(stdout);
  };
  const replay::Shrunk s = replay::shrink(
      r,
      [&](const engine::Reproducer& candidate) {
        try {
          runner.run(candidate, mode);
          return false;
        } catch (const Error& e) {
          return e.code() == code && (op.empty() || e.op() == op);
        } catch (const std::exception&) {
          return false;  // another failure: not the one being shrunk
        }
      },
      options);
  std::string error = r.error;
  try {
    runner.run(s.smallest, mode);
  } catch (const Error& e) {
    error = e.what();
  }
  const engine::Reproducer& small = s.smallest;
  std::ofstream file(out);
  // In the mode it failed in (--mode may have changed the file's).
  file << engine::reproducer_json(small.graph, small.inputs, small.outputs, mode, error,
                                  small.values);
  if (!file.flush()) {
    std::fprintf(stderr, "tensord-replay: cannot write %s\n", out.c_str());
    return 2;
  }
  std::printf("shrunk %zu ops to %zu in %zu attempts: %s\n", replay::op_count(r),
              replay::op_count(small), s.attempts, out.c_str());
  std::printf("error: %s: %s\n", std::string(name(code)).c_str(), error.c_str());
  return 1;
}

int run_local(const engine::Reproducer& r, engine::CompileMode mode, LocalRunner& runner) {
  print_outputs(runner.run(r, mode));
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
                                    replay::input_bytes(r, index)));
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
  std::string address, mode_name, dir, compiler, shrink_to, file;
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
    else if (a == "--shrink")
      ok = value(shrink_to);
    else if (a == "--help" || a == "-h")
      return std::fputs(kUsage, stdout), 0;
    else if (!a.starts_with("--") && file.empty())
      file = a;
    else
      ok = false;
    if (!ok) return std::fputs(kUsage, stderr), 2;
  }
  if (file.empty()) return std::fputs(kUsage, stderr), 2;
  if (!shrink_to.empty() && !address.empty()) {
    std::fputs("tensord-replay: --shrink runs locally; drop --address\n", stderr);
    return 2;
  }
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
    if (!address.empty()) return run_remote(r, mode, address);
    LocalRunner runner(dir, compiler);
    return shrink_to.empty() ? run_local(r, mode, runner)
                             : shrink_local(r, mode, runner, shrink_to);
  } catch (const Error& e) {
    std::printf("error: %s: %s\n", std::string(name(e.code())).c_str(), e.what());
    return 1;
  } catch (const std::exception& e) {
    std::printf("error: %s\n", e.what());
    return 1;
  }
}
