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
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/common/bench_daemon.h"
#include "bench/common/figure.h"
#include "bench/gpu/cuda_peer.h"
#include "bench/gpu/harness.h"
#include "tensord/client.h"
#include "tensord/host_buffer.h"

namespace {

using tensord::Session;
using tensord::Tensor;
using tensord::bench::GpuBench;
using tensord::bench::median_seconds;
using tensord::bench::TorchPeers;
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

void run_all(GpuBench& b) {
  Session& s = b.session();
  b.workload("d2d_copy_256MiB", [&] {
    const double peer =
        tensord::bench::memcpy_d2d_gbps(static_cast<size_t>(kBytes), b.warmup(), b.repeats());
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
    const double t = median_seconds(b.warmup(), b.repeats(), [&] {
      Tensor x = s.from_buffer(DType::Float32, {kElems}, frozen);
      s.sync({x});
      // A one-element read: it waits for the upload's copies on the device's stream.
      (void)x.slice(0, 0, 1).to_vector<float>();
    });
    const double peer = tensord::bench::memcpy_pinned_gbps(static_cast<size_t>(kBytes), true,
                                                           b.warmup(), b.repeats());
    b.report("upload_256MiB", kBytes / t / 1e9, "GB/s", {{"cudaMemcpy_pinned_h2d", peer}});
  });
  b.workload("download_256MiB", [&] {
    Tensor x = b.input({kElems}, 12);
    const double t =
        median_seconds(b.warmup(), b.repeats(), [&] { (void)tensord::fetch_buffer(x); });
    const double peer = tensord::bench::memcpy_pinned_gbps(static_cast<size_t>(kBytes), false,
                                                           b.warmup(), b.repeats());
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
    GpuBench bench(s, args.warmup, args.repeats, std::move(peers), "tensord-bench-gpu");
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
