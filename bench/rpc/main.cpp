// bench/rpc: what a sync point costs. Starts its own daemon (the real binary) unless
// --address is given, and prints seven figures as JSON lines (bench/common/figure.h):
//   roundtrip_1op       one tiny graph run + fetch, median us, vs a raw unix-socket ping-pong
//   chain_1000_per_op   a 1000-op elementwise chain recorded, sent, run and fetched: us per op,
//                       vs one round trip per op (what eager remote execution would pay)
//   matmul_1024_f32     GFLOP/s through the daemon vs oneDNN called directly in this process
//   replay_200_function the 200-kernel graph of bench/fusion's graph_replay_200 (1200 ops on a
//                       [64, 64] tensor) called as a tensord::Function: us per kernel, vs the
//                       same graph recorded and sent whole each call (Session::sync)
//   mlp_step_small_function  bench/fusion's 8-layer MLP forward at batch 8 (256 wide) called
//                       as a tensord::Function, steps/s, vs recorded and sent each call
//   function_chain_1op  y = f(y) for a one-op Function, 1000 calls each on the previous one's
//                       result (pipelined: none waits for its reply), us per call, vs
//                       roundtrip_1op (one op recorded, run and fetched per round trip)
//   fetch_synced        to_vector of a 4-element tensor already on the daemon (one Tensor.read),
//                       median us, vs the raw unix-socket ping-pong
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bench/common/bench_daemon.h"
#include "bench/common/figure.h"
#include "bench/common/launch_bound.h"
#include "bench/rpc/peers.h"
#include "tensord/client.h"

namespace {

using tensord::bench::median_seconds;
using tensord::bench::print_figure;

double roundtrip_us(tensord::Session& s, int iterations) {
  auto x = s.from_vector<float>({1, 2, 3, 4}, {4});
  s.sync({x});
  return median_seconds(100, iterations, [&] { (x + 1.0f).to_vector<float>(); }) * 1e6;
}

double fetch_synced_us(tensord::Session& s, int iterations) {
  auto x = s.from_vector<float>({1, 2, 3, 4}, {4});
  s.sync({x});
  return median_seconds(100, iterations, [&] { x.to_vector<float>(); }) * 1e6;
}

double chain_us_per_op(tensord::Session& s, int ops, int repeats) {
  std::vector<float> values(16);
  for (int i = 0; i < 16; ++i) values[i] = 0.01f * static_cast<float>(i);
  auto a = s.from_vector<float>(values, {16});
  auto b = s.from_vector<float>(std::vector<float>(16, 0.999f), {16});
  s.sync({a, b});
  double seconds = median_seconds(2, repeats, [&] {
    tensord::Tensor y = a;
    for (int i = 0; i < ops; ++i) y = (i % 2 == 0) ? y * b : y + b;
    y.to_vector<float>();
  });
  return seconds * 1e6 / ops;
}

double matmul_gflops(tensord::Session& s, int n, int repeats) {
  auto a = s.rand({n, n}, 1);
  auto b = s.rand({n, n}, 2);
  s.sync({a, b});
  double seconds = median_seconds(2, repeats, [&] {
    auto y = tensord::matmul(a, b);
    s.sync({y});
  });
  return 2.0 * n * n * double(n) / seconds / 1e9;
}

// Median seconds per call of `calls` calls of each side, then a wait for the last result.
// A recorded graph is synced each call; a Function call returns once sent (its run queued
// behind the previous one, as torch queues kernels), so only the last one is waited for.
// Samples of the two sides are taken in turn so that both see the same load on a shared
// machine.
std::pair<double, double> per_call_in_turn(tensord::Session& s, int calls, int repeats,
                                           const std::function<tensord::Tensor()>& function_call,
                                           const std::function<tensord::Tensor()>& recorded) {
  std::vector<double> a, b;
  auto sample = [&](const std::function<tensord::Tensor()>& make, bool sync_each,
                    std::vector<double>* into) {
    const auto t0 = std::chrono::steady_clock::now();
    tensord::Tensor y;
    for (int i = 0; i < calls; ++i) {
      y = make();
      if (sync_each) s.sync({y});
    }
    s.sync({y});
    const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (into) into->push_back(t / calls);
  };
  sample(function_call, false, nullptr), sample(recorded, true, nullptr);
  for (int i = 0; i < repeats; ++i) sample(function_call, false, &a), sample(recorded, true, &b);
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  return {a[a.size() / 2], b[b.size() / 2]};
}

void launch_bound_figures(tensord::Session& s) {
  using tensord::Tensor;
  namespace bench = tensord::bench;
  Tensor x = s.rand({64, 64}, 5);
  s.sync({x});
  tensord::Function replay = s.function(
      [](const std::vector<Tensor>& a) { return std::vector<Tensor>{bench::replay_ops(a[0])}; });
  auto [fn, lazy] = per_call_in_turn(
      s, 10, 9, [&] { return replay({x})[0]; }, [&] { return bench::replay_ops(x); });
  print_figure("replay_200_function", fn * 1e6 / bench::kReplaySegments, "us/node", "lazy_run",
               lazy * 1e6 / bench::kReplaySegments);

  Tensor in = s.rand({bench::kMlpBatch, bench::kMlpWidth}, 6);
  std::vector<Tensor> w, b;
  for (int i = 0; i < bench::kMlpLayers; ++i) {
    w.push_back(s.rand({bench::kMlpWidth, bench::kMlpWidth}, 10 + i) * (1.0f / 16));
    b.push_back(s.rand({bench::kMlpWidth}, 30 + i));
  }
  s.sync({in});
  s.sync(w);
  s.sync(b);
  tensord::Function step = s.function([&](const std::vector<Tensor>& a) {
    return std::vector<Tensor>{bench::mlp_forward(a[0], w, b)};
  });
  auto [step_fn, step_lazy] = per_call_in_turn(
      s, 50, 9, [&] { return step({in})[0]; }, [&] { return bench::mlp_forward(in, w, b); });
  print_figure("mlp_step_small_function", 1.0 / step_fn, "steps/s", "lazy_run", 1.0 / step_lazy);
}

double function_chain_us(tensord::Session& s, int calls, int repeats) {
  using tensord::Tensor;
  Tensor x = s.from_vector<float>({1, 2, 3, 4}, {4});
  s.sync({x});
  tensord::Function f =
      s.function([](const std::vector<Tensor>& a) { return std::vector<Tensor>{a[0] * 0.999f}; });
  return median_seconds(2, repeats,
                        [&] {
                          Tensor y = x;
                          for (int i = 0; i < calls; ++i) y = f({y})[0];
                          y.to_vector<float>();
                        }) *
         1e6 / calls;
}

}  // namespace

int main(int argc, char** argv) {
  std::string address, only;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--address") == 0 && i + 1 < argc) {
      address = argv[++i];
    } else if (std::strcmp(argv[i], "--only") == 0 && i + 1 < argc) {
      only = argv[++i];
    } else {
      std::fprintf(stderr,
                   "usage: tensord-bench-rpc [--address unix:PATH|tcp:HOST:PORT] [--only PREFIX]\n"
                   "  --only PREFIX  only the figures whose name starts with PREFIX (and the\n"
                   "                 peers they need), e.g. --only function_chain\n");
      return 2;
    }
  }
  const auto want = [&](const char* figure) { return std::string(figure).rfind(only, 0) == 0; };
  try {
    const tensord::bench::BenchDaemon daemon(address);
    address = daemon.address();
    auto s = tensord::connect(address);

    const bool ping = want("roundtrip_1op") || want("fetch_synced");
    const double pingpong = ping ? tensord::bench::unix_pingpong_median_us(5000, 64) : 0;
    const bool round =
        want("roundtrip_1op") || want("chain_1000_per_op") || want("function_chain_1op");
    const double roundtrip = round ? roundtrip_us(s, 3000) : 0;
    if (want("roundtrip_1op")) {
      print_figure("roundtrip_1op", roundtrip, "us", "unix_pingpong", pingpong);
    }
    if (want("fetch_synced")) {
      print_figure("fetch_synced", fetch_synced_us(s, 3000), "us", "unix_pingpong", pingpong);
    }
    if (want("chain_1000_per_op")) {
      double per_op = chain_us_per_op(s, 1000, 21);
      print_figure("chain_1000_per_op", per_op, "us", "roundtrip_1op", roundtrip);
    }
    if (want("matmul_1024_f32")) {
      double ours = matmul_gflops(s, 1024, 21);
      double onednn = tensord::bench::onednn_matmul_gflops(1024, 21);
      print_figure("matmul_1024_f32", ours, "GFLOP/s", "onednn_direct", onednn);
    }
    if (want("replay_200_function") || want("mlp_step_small_function")) launch_bound_figures(s);
    if (want("function_chain_1op")) {
      print_figure("function_chain_1op", function_chain_us(s, 1000, 9), "us", "roundtrip_1op",
                   roundtrip);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tensord-bench-rpc: %s\n", e.what());
    return 1;
  }
  return 0;
}
