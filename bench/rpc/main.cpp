// bench/rpc: what a sync point costs. Starts its own daemon (the real binary) unless
// --address is given, and prints three figures as JSON lines (bench/common/figure.h):
//   roundtrip_1op       one tiny graph run + fetch, median us, vs a raw unix-socket ping-pong
//   chain_1000_per_op   a 1000-op elementwise chain recorded, sent, run and fetched: us per op,
//                       vs one round trip per op (what eager remote execution would pay)
//   matmul_1024_f32     GFLOP/s through the daemon vs oneDNN called directly in this process
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bench/common/bench_daemon.h"
#include "bench/common/figure.h"
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

}  // namespace

int main(int argc, char** argv) {
  std::string address;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--address") == 0 && i + 1 < argc) {
      address = argv[++i];
    } else {
      std::fprintf(stderr, "usage: tensord-bench-rpc [--address unix:PATH|tcp:HOST:PORT]\n");
      return 2;
    }
  }
  try {
    const tensord::bench::BenchDaemon daemon(address);
    address = daemon.address();
    auto s = tensord::connect(address);

    double pingpong = tensord::bench::unix_pingpong_median_us(5000, 64);
    double roundtrip = roundtrip_us(s, 3000);
    print_figure("roundtrip_1op", roundtrip, "us", "unix_pingpong", pingpong);

    double per_op = chain_us_per_op(s, 1000, 21);
    print_figure("chain_1000_per_op", per_op, "us", "roundtrip_1op", roundtrip);

    double ours = matmul_gflops(s, 1024, 21);
    double onednn = tensord::bench::onednn_matmul_gflops(1024, 21);
    print_figure("matmul_1024_f32", ours, "GFLOP/s", "onednn_direct", onednn);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tensord-bench-rpc: %s\n", e.what());
    return 1;
  }
  return 0;
}
