// bench/profiler/engine_path.cpp: the worker's share of profile_overhead_chain, in process. The
// 1000-op elementwise chain of bench/profiler/main.cpp (eager: one step per op) goes through
// Engine::run on the CPU backend, as the daemon's device worker runs it (validate, plan lookup,
// execute), with tracing and memory recording on and with no profile, in alternating batches.
// No RPC, no client, no event loop: what is left of the difference is the worker's per-step
// profiling cost (clock reads, record building and appending, the step hook). The records are
// drained between batches, outside the timing, as the daemon's stream does on another thread.
// Times are the thread's CPU time (CLOCK_THREAD_CPUTIME_ID), not wall time: on a loaded machine
// a batch that spans the end of a time slice loses the slices of other processes, and the
// longer (traced) batches lose more of them, which is not what profiling costs.
// Prints JSON lines (bench/common/figure.h): engine_chain_traced vs engine_chain_bare, ns per op.
#include <time.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "bench/common/figure.h"
#include "engine/backends/cpu/cpu_backend.h"
#include "engine/exec/engine.h"

namespace {

namespace ir = tensord::ir;
namespace prof = tensord::profiler;
using tensord::bench::median;
using tensord::bench::print_figure;
using tensord::engine::CompileMode;
using tensord::engine::Engine;
using tensord::engine::RunProfile;
using tensord::engine::TensorValue;

constexpr int kOps = 1000;

// y = a; y = y * b, y + b, ... (kOps ops), as the client records it: one file, a line per op.
struct Chain {
  ir::Graph graph;
  ir::ValueRef y;
  Chain() {
    const uint32_t file = graph.intern_file("/home/user/project/examples/elementwise_chain.cpp");
    const ir::TensorType t{ir::DType::Float32, {16}};
    y = graph.add_input(0, t, {file, 10});
    const ir::ValueRef b = graph.add_input(1, t, {file, 11});
    for (int i = 0; i < kOps; ++i) {
      const auto line = static_cast<uint32_t>(20 + i % 2);
      y = graph.add(i % 2 == 0 ? ir::Op::mul : ir::Op::add, {y, b}, {}, {file, line});
    }
  }
};

double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

}  // namespace

int main(int argc, char** argv) {
  int repeats = 41;  // pairs of batches
  int runs = 5;      // chains per batch
  // --only traced|bare: run the batches of one kind only (no figure printed), for an instruction
  // count of one side under callgrind: the difference between two --repeats values, divided by
  // the ops in between, is that side's instructions per op (docs/profiler.md, "Measuring").
  bool with_traced = true, with_bare = true;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--repeats") == 0 && i + 1 < argc) {
      repeats = std::atoi(argv[++i]);
    } else if (std::strcmp(argv[i], "--only") == 0 && i + 1 < argc &&
               (std::strcmp(argv[i + 1], "traced") == 0 || std::strcmp(argv[i + 1], "bare") == 0)) {
      with_bare = std::strcmp(argv[++i], "bare") == 0;
      with_traced = !with_bare;
    } else {
      std::fprintf(stderr,
                   "usage: tensord-bench-profiler-engine [--repeats N] [--only traced|bare]\n");
      return 2;
    }
  }
  if (repeats < 1) {
    std::fprintf(stderr, "tensord-bench-profiler-engine: --repeats must be >= 1\n");
    return 2;
  }
  tensord::cpu::CpuBackend backend(1);
  Engine engine(backend);
  const ir::TensorType t{ir::DType::Float32, {16}};
  std::vector<TensorValue> inputs;
  for (float v : {0.5f, 0.999f}) {
    inputs.push_back(TensorValue::contiguous(backend.allocate(16 * 4), t));
    std::vector<float> host(16, v);
    backend.write(*inputs.back().buffer, 0, host.data(), host.size() * 4);
  }
  const Chain chain;
  RunProfile profile{std::make_shared<prof::Profiler>(1), std::make_shared<prof::MemoryLedger>(),
                     0};
  prof::Profiler::Encoded drained;
  auto batch = [&](const RunProfile* p) {
    const double t0 = cpu_seconds();
    for (int k = 0; k < runs; ++k) {
      if (p != nullptr) ++profile.request;
      engine.run(chain.graph, inputs, std::vector{chain.y}, CompileMode::Eager, p);
    }
    return cpu_seconds() - t0;
  };
  auto traced = [&] {
    // As the daemon profiles for a client (tensord::ProfileOptions: free_requested by default).
    profile.profiler->start(
        {.trace = true, .memory = true, .capacity = 1 << 20, .free_requested = true});
    const double s = batch(&profile);
    profile.profiler->stop();
    while (profile.profiler->drain_encoded(drained, 8192)) {
    }
    if (profile.profiler->dropped() != 0) std::fprintf(stderr, "warning: records dropped\n");
    return s;
  };
  for (int i = 0; i < 3; ++i) {
    if (with_bare) batch(nullptr);
    if (with_traced) traced();
  }
  std::vector<double> on, off;
  for (int i = 0; i < repeats; ++i) {
    if (with_bare && i % 2 == 0) off.push_back(batch(nullptr));
    if (with_traced) on.push_back(traced());
    if (with_bare && i % 2 == 1) off.push_back(batch(nullptr));
  }
  if (!with_traced || !with_bare) return 0;
  const double per_op = 1e9 / (runs * kOps);
  print_figure("engine_chain_traced", median(on) * per_op, "ns/op", "engine_chain_bare",
               median(off) * per_op);
  return 0;
}
