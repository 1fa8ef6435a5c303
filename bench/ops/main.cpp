// bench/ops: each op of issue 4 on a 1M-element float32 input ((1000, 1000); reductions and
// scans along rows, losses mean-reduced) through the daemon, against NumPy's equivalent timed
// by /usr/bin/python3 in the same run (numpy_peer.py). One JSON line per op
// (bench/common/figure.h): median ms per run; ratio = tensord / NumPy. Then the ten slowest
// ops by ratio, to stderr.
//
// What the tensord figure includes: recording the op, one `run` round trip (tens of us), the
// decomposed graph on the daemon, and freeing the result; inputs are already on the daemon.
// The daemon it starts runs `--threads 1` by default, as NumPy computes these on one thread
// (and OpenMP threads on a busy machine make medians swing by scheduler ticks). Usage:
// tensord-bench-ops [--address ADDR] [--threads N] [--repeats N] [--filter TEXT].
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bench/common/bench_daemon.h"
#include "bench/common/figure.h"
#include "bench/ops/ops_table.h"

#ifndef TENSORD_SOURCE_DIR
#error "TENSORD_SOURCE_DIR must name the source tree (for numpy_peer.py)"
#endif

namespace {

using tensord::Tensor;
using tensord::bench::median_seconds;

tensord::bench::OpInputs make_inputs(tensord::Session& s) {
  const tensord::ir::Shape shape{1000, 1000};
  auto uniform = [&](uint64_t seed, float lo, float hi) {
    return s.rand(shape, seed) * (hi - lo) + lo;
  };
  tensord::bench::OpInputs in{
      uniform(1, -4, 4),
      uniform(2, -4, 4),
      uniform(3, 0.5f, 4.5f),
      uniform(4, -0.9f, 0.9f),
      uniform(5, 0.01f, 0.99f),
      tensord::cast(tensord::floor(uniform(6, -1000, 1000)), tensord::ir::DType::Int32),
      tensord::cast(tensord::floor(uniform(7, 0, 8)), tensord::ir::DType::Int32),
      tensord::cast(tensord::floor(s.rand({1000}, 8) * 1000.0f), tensord::ir::DType::Int64),
      s.rand({1000}, 9) * 0.5f,
  };
  s.sync({in.x, in.y, in.pos, in.unit, in.prob, in.ints, in.shifts, in.classes, in.weight});
  return in;
}

// name -> median seconds, from numpy_peer.py's "name seconds" lines.
std::map<std::string, double> numpy_times(int repeats, const std::string& filter) {
  std::string cmd = "/usr/bin/python3 " TENSORD_SOURCE_DIR "/bench/ops/numpy_peer.py " +
                    std::to_string(repeats) + " '" + filter + "'";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(cmd.c_str(), "r"), pclose);
  if (!pipe) throw std::runtime_error("cannot run " + cmd);
  std::map<std::string, double> out;
  char name[128];
  double seconds;
  while (std::fscanf(pipe.get(), "%127s %lf", name, &seconds) == 2) out[name] = seconds;
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::string address, filter;
  int repeats = 7;
  std::string threads = "1";
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--address") == 0 && i + 1 < argc) {
      address = argv[++i];
    } else if (std::strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
      threads = argv[++i];
    } else if (std::strcmp(argv[i], "--repeats") == 0 && i + 1 < argc) {
      repeats = std::max(1, std::atoi(argv[++i]));
    } else if (std::strcmp(argv[i], "--filter") == 0 && i + 1 < argc) {
      filter = argv[++i];
    } else {
      std::fprintf(stderr,
                   "usage: tensord-bench-ops [--address ADDR] [--threads N] [--repeats N] "
                   "[--filter TEXT]\n");
      return 2;
    }
  }
  try {
    const tensord::bench::BenchDaemon daemon(
        address, tensord::test::DaemonOptions::with_args({"--threads", threads}));
    address = daemon.address();
    auto s = tensord::connect(address);
    const tensord::bench::OpInputs inputs = make_inputs(s);
    const std::map<std::string, double> peer = numpy_times(repeats, filter);
    std::vector<std::pair<double, std::string>> ratios;
    for (const auto& op : tensord::bench::op_cases()) {
      if (op.name.find(filter) == std::string::npos) continue;
      const double ours = median_seconds(2, repeats, [&] {
        Tensor y = op.build(inputs);
        s.sync({y});
      });
      auto it = peer.find(op.name);
      const double theirs = it == peer.end() ? 0.0 : it->second;
      tensord::bench::print_figure("op_" + op.name, ours * 1e3, "ms", "numpy", theirs * 1e3);
      if (theirs > 0) ratios.emplace_back(ours / theirs, op.name);
    }
    std::sort(ratios.rbegin(), ratios.rend());
    std::fprintf(stderr, "slowest ten by ratio (tensord / numpy):\n");
    for (size_t i = 0; i < std::min<size_t>(10, ratios.size()); ++i) {
      std::fprintf(stderr, "  %-22s %.2f\n", ratios[i].second.c_str(), ratios[i].first);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tensord-bench-ops: %s\n", e.what());
    return 1;
  }
  return 0;
}
