// bench/ops: each op of issue 4 on a 1M-element input (float32 (1000, 1000) unless the bench
// name gives another shape: (1024, 1024) matrices, 2^20-element signals, ...; reductions and
// scans along rows, losses mean-reduced) through the daemon, against NumPy's equivalent (SciPy's
// where NumPy has none) timed by /usr/bin/python3 in the same run (numpy_peer.py). One JSON
// line per op (bench/common/figure.h): median ms per run; ratio = tensord / NumPy (0 when there
// is no peer). Then one summary line to stderr: the ten slowest ops by ratio.
//
// What the tensord figure includes: recording the op, one `run` round trip (tens of us), the
// decomposed graph on the daemon, and freeing the result; inputs are already on the daemon.
// The daemon it starts runs `--threads 1` by default, as NumPy computes these on one thread
// (and OpenMP threads on a busy machine make medians swing by scheduler ticks). Usage:
// tensord-bench-ops [--address ADDR] [--threads N] [--repeats N] [--filter TEXT] [--explain].
// An op whose first run takes over 0.2 s is timed by that run and two more (both sides). An op
// that fails is reported on stderr and skipped. NumPy's BLAS and
// LAPACK run on one thread too (OPENBLAS_NUM_THREADS=1). --explain prints each op's fused plan
// to stderr.
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

// Median seconds of `fn` over `repeats` runs after two warm-up runs or, when the first run
// takes longer than 0.2 s, over that run and two more (numpy_peer.py's rule too).
template <typename Fn>
double op_seconds(int repeats, Fn&& fn) {
  const double first = median_seconds(0, 1, fn);
  if (first > 0.2)
    return tensord::bench::median({first, median_seconds(0, 1, fn), median_seconds(0, 1, fn)});
  return median_seconds(1, repeats, fn);
}

// name -> median seconds, from numpy_peer.py's "name seconds" lines.
std::map<std::string, double> numpy_times(int repeats, const std::string& filter) {
  std::string cmd = "OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 /usr/bin/python3 " TENSORD_SOURCE_DIR
                    "/bench/ops/numpy_peer.py " +
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
  bool explain = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--address") == 0 && i + 1 < argc) {
      address = argv[++i];
    } else if (std::strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
      threads = argv[++i];
    } else if (std::strcmp(argv[i], "--repeats") == 0 && i + 1 < argc) {
      repeats = std::max(1, std::atoi(argv[++i]));
    } else if (std::strcmp(argv[i], "--filter") == 0 && i + 1 < argc) {
      filter = argv[++i];
    } else if (std::strcmp(argv[i], "--explain") == 0) {
      explain = true;
    } else {
      std::fprintf(stderr,
                   "usage: tensord-bench-ops [--address ADDR] [--threads N] [--repeats N] "
                   "[--filter TEXT] [--explain]\n");
      return 2;
    }
  }
  try {
    const tensord::bench::BenchDaemon daemon(
        address, tensord::test::DaemonOptions::with_args(
                     {"--threads", threads, "--background-compile", "off"}));
    address = daemon.address();
    auto s = tensord::connect(address);
    const tensord::bench::OpInputs inputs = tensord::bench::make_inputs(s);
    const std::map<std::string, double> peer = numpy_times(repeats, filter);
    std::vector<std::pair<double, std::string>> ratios;
    std::vector<std::string> no_peer, failed;
    for (const auto& op : tensord::bench::op_cases()) {
      if (op.name.find(filter) == std::string::npos) continue;
      double ours = 0;
      try {
        if (explain) {
          std::fprintf(stderr, "%s:\n%s\n", op.name.c_str(),
                       tensord::explain(op.build(inputs).tensors).text.c_str());
        }
        ours = op_seconds(repeats, [&] { s.sync(op.build(inputs).tensors); });
      } catch (const tensord::Error& e) {
        std::fprintf(stderr, "%s failed: %s\n", op.name.c_str(), e.what());
        failed.push_back(op.name);
        continue;
      }
      auto it = peer.find(op.name);
      const double theirs = it == peer.end() ? 0.0 : it->second;
      const std::string bench = "op_" + op.name + (op.shape.empty() ? "" : "_" + op.shape);
      tensord::bench::print_figure(bench, ours * 1e3, "ms", theirs > 0 ? "numpy" : "none",
                                   theirs * 1e3);
      if (theirs > 0)
        ratios.emplace_back(ours / theirs, op.name);
      else
        no_peer.push_back(op.name);
    }
    std::sort(ratios.rbegin(), ratios.rend());
    std::string summary;
    for (size_t i = 0; i < std::min<size_t>(10, ratios.size()); ++i) {
      char buf[96];
      std::snprintf(buf, sizeof buf, "%s%s %.2f", i ? ", " : "", ratios[i].second.c_str(),
                    ratios[i].first);
      summary += buf;
    }
    const double median_ratio =
        ratios.empty() ? 0.0 : ratios[ratios.size() / 2].first;  // sorted, descending
    std::fprintf(stderr,
                 "%zu ops, %zu with a peer, median ratio %.2f; slowest ten by ratio "
                 "(tensord / numpy): %s\n",
                 ratios.size() + no_peer.size(), ratios.size(), median_ratio, summary.c_str());
    for (const std::string& name : no_peer) std::fprintf(stderr, "no peer: %s\n", name.c_str());
    if (!failed.empty()) {
      std::fprintf(stderr, "%zu ops failed\n", failed.size());
      return 1;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tensord-bench-ops: %s\n", e.what());
    return 1;
  }
  return 0;
}
