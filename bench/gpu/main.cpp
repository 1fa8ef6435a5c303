// bench/gpu: the daemon on a GPU (--device cuda), through the real client, against PyTorch on
// the same GPU and cudaMemcpy. Starts its own daemon (the real binary, $TENSORD_BIN) unless
// --address names one, and prints JSON lines (bench/common/figure.h), one per figure and peer:
//   d2d_copy_256MiB          GB/s (read + write) of -x over 64M float32 vs cudaMemcpy D2D
//   chain_exp_64M            exp(x*2+1) over 64M float32, GB/s (read + write once)
//   softmax_4096x4096        softmax over rows, GB/s
//   layernorm_4096x4096      layer_norm over rows with weight and bias, GB/s
//   matmul_f32_4096_highest  4096^3 float32 matmul at each float32 matmul precision, TFLOP/s
//   matmul_f32_4096_high     (Session::set_float32_matmul_precision: TF32 for "high",
//   matmul_f32_4096_medium    bfloat16 for "medium")
//   matmul_bf16_4096         4096^3 bfloat16 matmul, TFLOP/s
//   sum_64M                  sum of 64M float32, GB/s (read once)
//   upload_256MiB            client HostBuffer -> GPU tensor, GB/s; also vs cudaMemcpy H2D from
//                            pinned memory (the daemon stages it through pinned chunks)
//   download_256MiB          GPU tensor -> client HostBuffer, GB/s; also vs pinned D2H
// The peers of each figure are PyTorch's (eager, torch.compile, CUDA graphs) from a JSON-lines
// file written by bench/gpu/torch_peer.py (--torch-peers FILE), one line per peer; without it
// the peer is "none". tensord's figures are end to end: one sync point per repeat (the request,
// the kernels, and a one-element read that waits for them on the device's stream), so the
// ratio to PyTorch's kernel time (CUDA events) includes the round trips. Medians over
// --repeats repeats after --warmup untimed ones.
//
// Exit codes: 0 all figures measured; 1 some workload failed (its error on stderr, the others
// measured); 2 usage; 77 no usable CUDA device (or a daemon that runs on the CPU).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/common/bench_daemon.h"
#include "bench/common/figure.h"
#include "bench/gpu/cuda_peer.h"
#include "tensord/client.h"
#include "tensord/host_buffer.h"

namespace {

using tensord::Session;
using tensord::Tensor;
using tensord::bench::median_seconds;
using tensord::bench::print_figure;
using tensord::ir::DType;

constexpr int64_t kElems = int64_t{64} << 20;  // 64M float32: 256 MiB
constexpr int64_t kRows = 4096;
constexpr double kBytes = static_cast<double>(kElems) * 4;

struct Args {
  std::string address;  // empty: a daemon of our own
  std::string torch_peers;
  int warmup = 3;
  int repeats = 10;
};

int usage() {
  std::fprintf(stderr,
               "usage: tensord-bench-gpu [--address ADDR] [--torch-peers FILE] [--warmup N]"
               " [--repeats N]\n");
  return 2;
}

// (bench, impl) -> value from torch_peer.py's lines; impls in the order they came.
struct TorchPeers {
  std::map<std::string, std::vector<std::pair<std::string, double>>> by_bench;

  static TorchPeers read(const std::string& path) {
    TorchPeers peers;
    if (path.empty()) return peers;
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot read --torch-peers " + path);
    std::string line;
    while (std::getline(in, line)) {
      auto j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
      if (!j.is_object() || !j.contains("bench") || !j.contains("impl") || !j.contains("value") ||
          !j["value"].is_number()) {
        continue;  // a note or an error line of the peer script
      }
      peers.by_bench[j["bench"].get<std::string>()].emplace_back(j["impl"].get<std::string>(),
                                                                 j["value"].get<double>());
    }
    return peers;
  }
};

class Bench {
 public:
  Bench(Session& s, const Args& args, TorchPeers peers)
      : s_(s), args_(args), peers_(std::move(peers)) {}

  // One figure: tensord's value against each PyTorch peer of the same name (and `extra`).
  void report(const std::string& name, double value, const std::string& unit,
              const std::vector<std::pair<std::string, double>>& extra = {}) {
    auto all = extra;
    if (auto it = peers_.by_bench.find(name); it != peers_.by_bench.end()) {
      all.insert(all.end(), it->second.begin(), it->second.end());
    }
    if (all.empty()) all.emplace_back("none", 0.0);
    for (const auto& [peer, peer_value] : all) print_figure(name, value, unit, peer, peer_value);
  }

  // Runs `body`, reporting a failure (an op the backend lacks, say) without stopping the rest.
  void workload(const std::string& name, const std::function<void()>& body) {
    try {
      body();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "tensord-bench-gpu: %s failed: %s\n", name.c_str(), e.what());
      std::printf("{\"bench\":\"%s\",\"error\":%s}\n", name.c_str(),
                  nlohmann::json(std::string(e.what())).dump().c_str());
      std::fflush(stdout);
      ++failures_;
    }
  }

  // Median seconds of materializing make() on the daemon, the kernels included.
  double seconds(const std::function<Tensor()>& make) {
    return median_seconds(args_.warmup, args_.repeats, [&] {
      Tensor y = make();
      s_.sync({y});
      finish(y);
    });
  }

  // A float32 tensor of `shape` from host values in [-2, 2) (uploaded: needs no creation kernel).
  Tensor input(const tensord::ir::Shape& shape, uint32_t seed) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    auto buffer = s_.host_buffer(static_cast<size_t>(n) * sizeof(float));
    auto* p = reinterpret_cast<float*>(buffer->data());
    uint32_t state = seed * 2654435761u + 1;
    for (int64_t i = 0; i < n; ++i) {
      state = state * 1664525u + 1013904223u;
      p[i] = static_cast<float>(state >> 8) * (4.0f / 16777216.0f) - 2.0f;
    }
    Tensor t = s_.from_buffer(DType::Float32, shape, std::move(buffer));
    s_.sync({t});
    return t;
  }

  Session& session() { return s_; }
  const Args& args() const { return args_; }
  int failures() const { return failures_; }

 private:
  // One element of `y`, fetched: its read is queued behind y's kernels on the device's stream,
  // so the sync point ends when they have run.
  static void finish(const Tensor& y) {
    Tensor e = y.reshape({-1}).slice(0, 0, 1);
    if (e.dtype() != DType::Float32) e = e.astype(DType::Float32);
    (void)e.to_vector<float>();
  }

  Session& s_;
  const Args& args_;
  TorchPeers peers_;
  int failures_ = 0;
};

void run_all(Bench& b) {
  Session& s = b.session();
  b.workload("d2d_copy_256MiB", [&] {
    const double peer = tensord::bench::memcpy_d2d_gbps(static_cast<size_t>(kBytes),
                                                        b.args().warmup, b.args().repeats);
    Tensor x = b.input({kElems}, 1);
    const double t = b.seconds([&] { return -x; });
    b.report("d2d_copy_256MiB", 2 * kBytes / t / 1e9, "GB/s", {{"cudaMemcpy_d2d", peer}});
  });
  b.workload("chain_exp_64M", [&] {
    Tensor x = b.input({kElems}, 2);
    const double t = b.seconds([&] { return tensord::exp(x * 2.0f + 1.0f); });
    b.report("chain_exp_64M", 2 * kBytes / t / 1e9, "GB/s");
  });
  const double rows_bytes = 2.0 * kRows * kRows * 4;
  b.workload("softmax_4096x4096", [&] {
    Tensor m = b.input({kRows, kRows}, 3);
    const double t = b.seconds([&] { return tensord::softmax(m, -1); });
    b.report("softmax_4096x4096", rows_bytes / t / 1e9, "GB/s");
  });
  b.workload("layernorm_4096x4096", [&] {
    Tensor m = b.input({kRows, kRows}, 4);
    Tensor w = b.input({kRows}, 5), bias = b.input({kRows}, 6);
    const double t = b.seconds([&] { return tensord::layer_norm(m, 1, w, bias); });
    b.report("layernorm_4096x4096", rows_bytes / t / 1e9, "GB/s");
  });
  const double flops = 2.0 * kRows * kRows * kRows;
  for (const char* precision : {"highest", "high", "medium"}) {
    const std::string name = std::string("matmul_f32_4096_") + precision;
    b.workload(name, [&] {
      Tensor a = b.input({kRows, kRows}, 7), c = b.input({kRows, kRows}, 8);
      s.set_float32_matmul_precision(precision);
      const double t = b.seconds([&] { return tensord::matmul(a, c); });
      s.set_float32_matmul_precision("highest");
      b.report(name, flops / t / 1e12, "TFLOP/s");
    });
  }
  s.set_float32_matmul_precision("highest");
  b.workload("matmul_bf16_4096", [&] {
    Tensor a = b.input({kRows, kRows}, 9).astype(DType::BFloat16);
    Tensor c = b.input({kRows, kRows}, 10).astype(DType::BFloat16);
    s.sync({a, c});
    const double t = b.seconds([&] { return tensord::matmul(a, c); });
    b.report("matmul_bf16_4096", flops / t / 1e12, "TFLOP/s");
  });
  b.workload("sum_64M", [&] {
    Tensor x = b.input({kElems}, 11);
    const double t = b.seconds([&] { return tensord::sum(x); });
    b.report("sum_64M", kBytes / t / 1e9, "GB/s");
  });
  b.workload("upload_256MiB", [&] {
    auto buffer = s.host_buffer(static_cast<size_t>(kBytes));
    std::memset(buffer->data(), 0, static_cast<size_t>(kBytes));
    std::shared_ptr<const tensord::HostBuffer> frozen = buffer;  // not written from here on
    const double t = median_seconds(b.args().warmup, b.args().repeats, [&] {
      Tensor x = s.from_buffer(DType::Float32, {kElems}, frozen);
      s.sync({x});
      // A one-element read: it waits for the upload's copies on the device's stream.
      (void)x.slice(0, 0, 1).to_vector<float>();
    });
    const double peer = tensord::bench::memcpy_pinned_gbps(static_cast<size_t>(kBytes), true,
                                                           b.args().warmup, b.args().repeats);
    b.report("upload_256MiB", kBytes / t / 1e9, "GB/s", {{"cudaMemcpy_pinned_h2d", peer}});
  });
  b.workload("download_256MiB", [&] {
    Tensor x = b.input({kElems}, 12);
    const double t =
        median_seconds(b.args().warmup, b.args().repeats, [&] { (void)tensord::fetch_buffer(x); });
    const double peer = tensord::bench::memcpy_pinned_gbps(static_cast<size_t>(kBytes), false,
                                                           b.args().warmup, b.args().repeats);
    b.report("download_256MiB", kBytes / t / 1e9, "GB/s", {{"cudaMemcpy_pinned_d2h", peer}});
  });
}

bool parse(int argc, char** argv, Args& args) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    const char* v = nullptr;
    if (a == "--address" && (v = value())) {
      args.address = v;
    } else if (a == "--torch-peers" && (v = value())) {
      args.torch_peers = v;
    } else if (a == "--warmup" && (v = value())) {
      args.warmup = std::atoi(v);
    } else if (a == "--repeats" && (v = value())) {
      args.repeats = std::atoi(v);
    } else {
      return false;
    }
  }
  return args.warmup >= 0 && args.repeats >= 1;
}

}  // namespace

int main(int argc, char** argv) {
  Args args;
  if (!parse(argc, argv, args)) return usage();
  const tensord::bench::CudaProbe probe = tensord::bench::probe_cuda();
  if (!probe.usable) {
    std::fprintf(stderr, "tensord-bench-gpu: skipped, no usable CUDA device: %s\n",
                 probe.why_not.c_str());
    return 77;
  }
  try {
    TorchPeers peers = TorchPeers::read(args.torch_peers);
    tensord::bench::BenchDaemon daemon(
        args.address, tensord::test::DaemonOptions::with_args({"--device", "cuda"}));
    Session s = tensord::connect(daemon.address());
    const auto& devices = s.info().devices;
    if (devices.empty() || devices[0].kind != "cuda") {
      std::fprintf(stderr, "tensord-bench-gpu: skipped, the daemon at %s runs on the %s\n",
                   daemon.address().c_str(), devices.empty() ? "?" : devices[0].kind.c_str());
      return 77;
    }
    std::fprintf(stderr, "tensord-bench-gpu: %s (%s)\n", devices[0].name.c_str(),
                 probe.name.c_str());
    Bench bench(s, args, std::move(peers));
    run_all(bench);
    for (const auto& d : s.memory_stats()) {
      if (!d.allocator) continue;
      std::fprintf(stderr, "tensord-bench-gpu: %s:%u peak allocated %.1f MiB, reserved %.1f MiB\n",
                   d.device.kind.c_str(), d.device.index,
                   static_cast<double>(d.allocator->allocated_bytes.peak) / (1 << 20),
                   static_cast<double>(d.allocator->reserved_bytes.peak) / (1 << 20));
    }
    return bench.failures() == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tensord-bench-gpu: %s\n", e.what());
    return 1;
  }
}
