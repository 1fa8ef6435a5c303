// bench/sharing: what one session sees of another on a shared device (docs/scheduling.md).
// A "heavy" session runs long graphs back to back (eager chains of sin over 4M float32, a few
// hundred steps each, in a thread of its own) while a "light" one sends small requests (a sum
// of 16 floats, synced) every 15 ms; all on the CPU daemon, each figure from daemons started for
// it. JSON lines (bench/common/figure.h):
//   light_latency_under_load      median ms of the light request, daemon at the default time
//                                 slice (10 ms), vs the same with --time-slice-ms 0 (turns by
//                                 whole runs)
//   light_latency_vs_idle         the same median vs the light request with no heavy session
//   heavy_run_under_slicing       median ms of one heavy run with the light traffic, sliced vs
//                                 not: what the pauses cost the heavy session
//   light_latency_while_compiling  median ms of the light request while the other session runs
//                                 a new fused graph each time (a 12-op chain over 64K floats
//                                 whose ops follow the run's number: a compile each), daemon at
//                                 its default --background-compile on, vs off (the device's
//                                 worker waits for each compile)
// Arguments: [--steps N] (heavy steps per run, default 300) [--samples N] (light requests, 40).
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "bench/common/figure.h"
#include "tensord/client.h"
#include "tests/support/daemon/daemon_process.h"

namespace {

using tensord::Session;
using tensord::Tensor;
using tensord::bench::median;
using tensord::bench::print_figure;
using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

struct Measured {
  double light_ms = 0;  // median light request
  double heavy_ms = 0;  // median heavy run (0 without a heavy session)
};

enum class Heavy { None, EagerChain, NewGraphs };

// A 12-op elementwise chain whose ops are picked by the digits of `n` in base 4: a new kernel
// for each n below 4^12.
Tensor new_graph(const Tensor& x, int n) {
  Tensor y = x;
  for (int i = 0; i < 12; ++i, n /= 4) {
    switch (n % 4) {
      case 0:
        y = tensord::sin(y);
        break;
      case 1:
        y = tensord::cos(y);
        break;
      case 2:
        y = y * 0.5f + 1.0f;
        break;
      default:
        y = tensord::tanh(y);
        break;
    }
  }
  return y;
}

// One daemon with `slice_ms`; the heavy session runs (what `heavy` says) while the light one
// samples.
Measured measure(const std::string& slice_ms, Heavy heavy_kind, int steps, int samples,
                 const char* background = "off") {
  const bool heavy = heavy_kind != Heavy::None;
  tensord::test::DaemonProcess daemon(tensord::test::DaemonOptions::with_args(
      {"--device", "cpu", "--time-slice-ms", slice_ms, "--cache-dir", "none",
       "--background-compile", background}));
  std::atomic<bool> stop{false};
  std::atomic<int> heavy_runs{0};
  std::vector<double> heavy_times;
  std::thread heavy_thread;
  if (heavy) {
    heavy_thread = std::thread([&] {
      Session s = tensord::connect(daemon.address());  // a session is used by its own thread
      const bool eager = heavy_kind == Heavy::EagerChain;
      s.set_compile_mode(eager ? "eager" : "default");
      Tensor x = eager ? s.rand({2048, 2048}, 1) : s.rand({1 << 16}, 1);
      s.sync({x});
      for (int n = 0; !stop.load(); ++n) {
        const auto t0 = Clock::now();
        Tensor y = x;
        if (eager) {
          for (int i = 0; i < steps; ++i) y = tensord::sin(y);
        } else {
          y = new_graph(x, n);
        }
        s.sync({y});
        heavy_times.push_back(ms_since(t0));
        heavy_runs.fetch_add(1);
      }
    });
  }
  Session light = tensord::connect(daemon.address());
  Tensor x = light.rand({16}, 2);
  light.sync({x});
  while (heavy && heavy_runs.load() < 1) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  std::vector<double> light_times;
  for (int i = 0; i < samples + 3; ++i) {
    const auto t0 = Clock::now();
    light.sync({(x * 2.0f).sum({0})});
    if (i >= 3) light_times.push_back(ms_since(t0));
    std::this_thread::sleep_for(std::chrono::milliseconds(15));
  }
  stop = true;
  if (heavy_thread.joinable()) heavy_thread.join();
  // The heavy runs that overlapped the light traffic: not the first (before it), not the last.
  if (heavy_times.size() > 2) heavy_times = {heavy_times.begin() + 1, heavy_times.end() - 1};
  return Measured{median(light_times), heavy ? median(heavy_times) : 0};
}

}  // namespace

int main(int argc, char** argv) {
  int steps = 300, samples = 40;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--steps") steps = std::atoi(argv[i + 1]);
    if (a == "--samples") samples = std::atoi(argv[i + 1]);
  }
  if (steps < 1 || samples < 1) {
    std::fprintf(stderr, "usage: tensord-bench-sharing [--steps N] [--samples N]\n");
    return 2;
  }
  try {
    const Measured idle = measure("10", Heavy::None, steps, samples);
    const Measured sliced = measure("10", Heavy::EagerChain, steps, samples);
    const Measured whole = measure("0", Heavy::EagerChain, steps, samples);
    const Measured compiling = measure("10", Heavy::NewGraphs, steps, samples, "on");
    const Measured compiling_waits = measure("10", Heavy::NewGraphs, steps, samples, "off");
    print_figure("light_latency_under_load", sliced.light_ms, "ms", "no_time_slice",
                 whole.light_ms);
    print_figure("light_latency_vs_idle", sliced.light_ms, "ms", "idle", idle.light_ms);
    print_figure("heavy_run_under_slicing", sliced.heavy_ms, "ms", "no_time_slice", whole.heavy_ms);
    print_figure("light_latency_while_compiling", compiling.light_ms, "ms",
                 "background_compile_off", compiling_waits.light_ms);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tensord-bench-sharing: %s\n", e.what());
    return 1;
  }
  return 0;
}
