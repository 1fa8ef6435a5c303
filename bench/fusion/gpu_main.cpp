// bench/fusion, its GPU half (issue 6): fused kernels, CUDA-graph replays and a small MLP
// through the daemon on a GPU (--device cuda), against the device's copy bandwidth and
// PyTorch on the same GPU. Prints JSON lines (bench/common/figure.h), ratio = value/peer_value:
//   gpu_chain8_256M          tanh(exp(-x*x)*2+1)*0.5 - sqrt(abs(x)) on 256M float32 (1 GiB),
//                            effective GB/s (read + written once) vs cudaMemcpy D2D of the same
//                            bytes (goal >= 0.85), and vs torch eager
//   gpu_chain8_vs_compile    the same against torch.compile (goal >= 1.0)
//   gpu_softmax_<cols>       softmax over rows of [64M/cols, cols] float32 (256 MiB), cols
//   gpu_layernorm_<cols>     4096, 32768, 262144; GB/s vs cudaMemcpy D2D of 256 MiB (goal
//                            >= 0.85) and vs torch eager; *_vs_compile: vs torch.compile
//   graph_replay_200         us per node of a 200-kernel plan on a [64, 64] tensor replayed in
//                            reduce-overhead mode, called as a tensord::Function (goal <= 1.0),
//                            vs torch eager and a torch CUDA graph of the same ops (time / 200
//                            on both sides)
//   mlp_step_small           forward of 8 linear layers 256 -> 256 (relu between) at batch 8
//                            in reduce-overhead mode, a tensord::Function, steps/s, vs torch
//                            eager (goal >= 2)
//   mlp_step_small_vs_cudagraph  the same vs the torch forward replayed as a CUDA graph (>= 0.8)
//   mlp_chain_small          the same forward with tanh after it, each step on the previous
//                            step's output (x = step(x), a dependent chain: the call goes out
//                            before the previous one's reply), steps/s, vs torch eager doing
//                            the same; *_vs_cudagraph: vs a torch CUDA graph of one step that
//                            copies its output into its input (no issue goal: it measures the
//                            pipelined results of docs/design-notes.md on a GPU)
//   *_lazy                   graph_replay_200 and mlp_step_small recorded again and sent as a
//                            whole graph each call (Session::sync), vs the same torch lines
//
// Timing, both sides alike (bench/fusion/torch_gpu_peer.py does the same in PyTorch): inputs
// are made and uploaded before timing and stay on the device, results stay there; a sample is
// the wall-clock time of N back-to-back calls (each sent with Session::sync, which returns when
// the run is queued on the device's stream; a tensord::Function call returns once sent, its
// run queued behind the previous one) and one wait for the device at the end (a
// one-element read queued behind the last run; torch.cuda.synchronize() in PyTorch), divided
// by N; the figure is the median over --repeats samples after --warmup untimed calls. N is 16
// for the 256 MiB-and-larger workloads (as bench/gpu's device figures; 3 until 2026-11-28,
// when the first call's round trip, which no later kernel hides, weighed a third), 100 for
// graph_replay_200 and the mlp figures. The cudaMemcpy D2D peer is the time of N copies between
// CUDA events, divided by N (bench/gpu/cuda_peer.h): the device's ceiling, without a round trip.
//
// --smoke runs every workload tiny on whatever device the daemon has, without the cudaMemcpy
// peer (tests/bench tests the program on the CPU with it); its figures mean nothing.
//
// Exit codes: 0 all figures measured; 1 some workload failed (an {"bench", "error"} line, the
// others measured); 2 usage; 77 no usable CUDA device (or a daemon that runs on the CPU).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "bench/common/bench_daemon.h"
#include "bench/common/launch_bound.h"
#include "bench/gpu/cuda_peer.h"
#include "bench/gpu/harness.h"
#include "tensord/client.h"

namespace {

using tensord::Session;
using tensord::Tensor;
using tensord::bench::GpuBench;
using tensord::bench::TorchPeers;

constexpr const char* kProgram = "tensord-bench-fusion-gpu";
// The sizes and calls per sample; --smoke divides the sizes by 4096 and makes 1 call a sample.
struct Sizes {
  int64_t chain_elems = int64_t{256} << 20;  // 256M float32: 1 GiB
  int64_t rows_elems = int64_t{64} << 20;    // 64M float32: 256 MiB
  int big_calls = 16;
  int small_calls = 100;
};
using tensord::bench::kMlpBatch;
using tensord::bench::kMlpLayers;
using tensord::bench::kMlpWidth;
using tensord::bench::kReplaySegments;
using tensord::bench::mlp_forward;
using tensord::bench::replay_ops;

struct Args {
  std::string address;                   // empty: a daemon of our own
  std::string cache_dir;                 // that daemon's --cache-dir
  std::vector<std::string> daemon_args;  // and more of its flags (--daemon-arg)
  std::string torch_peers;
  std::string only;  // run only the workloads of the figures whose names start with it
  int warmup = 3;
  int repeats = 10;
  // Runs every workload on whatever device the daemon has (the CPU here), tiny, without the
  // cudaMemcpy peer: tests the program where there is no GPU. Its figures mean nothing.
  bool smoke = false;
  Sizes sizes;
};

int usage() {
  std::fprintf(stderr,
               "usage: %s [--address ADDR] [--cache-dir DIR] [--daemon-arg FLAG]... "
               "[--torch-peers FILE] [--only PREFIX] [--warmup N] [--repeats N] [--smoke]\n"
               "  --daemon-arg FLAG  one more argument for the daemon it starts, e.g.\n"
               "                     --daemon-arg --cuda-programmatic-launch --daemon-arg off\n",
               kProgram);
  return 2;
}

// The CPU bench's chain (bench/fusion/main.cpp): eight elementwise ops, one fused kernel.
Tensor chain8(const Tensor& x) {
  return tensord::tanh(tensord::exp(-(x * x)) * 2.0f + 1.0f) * 0.5f -
         tensord::sqrt(tensord::abs(x));
}

// Each figure's PyTorch lines carry its own name (torch_gpu_peer.py), so report() finds them.
void run_all(GpuBench& b, const Args& args) {
  // --only gpu_chain8 runs gpu_chain8_256M; --only gpu_softmax_4096_vs_compile runs
  // gpu_softmax_4096, whose figure it is.
  const auto want = [&](const std::string& name) {
    return name.starts_with(args.only) || args.only.starts_with(name);
  };
  const Sizes& z = args.sizes;
  // The D2D copy of `bytes` (none in --smoke: it may run without CUDA).
  const auto d2d = [&](int64_t bytes) -> std::vector<std::pair<std::string, double>> {
    if (args.smoke) return {};
    return {
        {"cudaMemcpy_d2d", tensord::bench::memcpy_d2d_gbps(static_cast<size_t>(bytes), b.warmup(),
                                                           b.repeats(), z.big_calls)}};
  };
  if (want("gpu_chain8_256M")) {
    b.workload("gpu_chain8_256M", [&] {
      const double bytes = 2.0 * static_cast<double>(z.chain_elems) * 4;
      const auto copy = d2d(z.chain_elems * 4);
      Tensor x = b.input({z.chain_elems}, 1);
      const double gbps = bytes / b.seconds_per_call(z.big_calls, [&] { return chain8(x); }) / 1e9;
      b.print_stage_times("gpu_chain8_256M", z.big_calls, [&] { return chain8(x); });
      b.report("gpu_chain8_256M", gbps, "GB/s", copy);
      b.report("gpu_chain8_vs_compile", gbps, "GB/s");
    });
  }
  std::optional<std::vector<std::pair<std::string, double>>> copy;  // once, for every rows figure
  for (const char* op : {"softmax", "layernorm"}) {
    for (const int64_t cols : {int64_t{4096}, int64_t{32768}, int64_t{262144}}) {
      const std::string name = std::string("gpu_") + op + "_" + std::to_string(cols);
      if (!want(name)) continue;
      b.workload(name, [&] {
        if (!copy) copy = d2d(z.rows_elems * 4);
        const int64_t rows = std::max<int64_t>(1, z.rows_elems / cols);
        Tensor m = b.input({rows, cols}, 2);
        Tensor w = b.input({cols}, 3), bias = b.input({cols}, 4);
        const bool softmax = std::string(op) == "softmax";
        const auto make = [&] {
          return softmax ? tensord::softmax(m, -1) : tensord::layer_norm(m, 1, w, bias);
        };
        const double t = b.seconds_per_call(z.big_calls, make);
        b.print_stage_times(name, z.big_calls, make);
        const double gbps = 2.0 * static_cast<double>(rows * cols) * 4 / t / 1e9;
        b.report(name, gbps, "GB/s", *copy);
        b.report(name + "_vs_compile", gbps, "GB/s");
      });
    }
  }
  Session& s = b.session();
  if (want("graph_replay_200")) {
    b.workload("graph_replay_200", [&] {
      Tensor x = b.input({64, 64}, 5);
      s.set_compile_mode("reduce-overhead");
      tensord::Function replay = s.function(
          [](const std::vector<Tensor>& a) { return std::vector<Tensor>{replay_ops(a[0])}; });
      const auto call = [&] { return replay({x})[0]; };
      const double us = 1e6 * b.seconds_per_function_call(z.small_calls, call) / kReplaySegments;
      const double lazy_us =
          1e6 * b.seconds_per_call(z.small_calls, [&] { return replay_ops(x); }) / kReplaySegments;
      b.print_stage_times("graph_replay_200", z.small_calls, call);
      const tensord::Explanation e = tensord::explain({replay_ops(x)});
      s.set_compile_mode("default");
      std::fprintf(stderr, "%s: graph_replay_200: %u kernels per run, %s\n", kProgram, e.steps,
                   e.captured ? "replayed as a CUDA graph" : "NOT replayed as a CUDA graph");
      b.report("graph_replay_200", us, "us/node");
      for (const char* impl : {"torch_eager", "torch_cuda_graph"}) {
        b.report_against("graph_replay_200_lazy", lazy_us, "us/node", "graph_replay_200", impl);
      }
    });
  }
  // The small MLP's input and parameters, on the device.
  struct Mlp {
    Tensor x;
    std::vector<Tensor> w, bias;
  };
  const auto make_mlp = [&] {
    Mlp m{b.input({kMlpBatch, kMlpWidth}, 6), {}, {}};
    for (int i = 0; i < kMlpLayers; ++i) {
      m.w.push_back(b.input({kMlpWidth, kMlpWidth}, 10 + i) * (1.0f / 16));  // keeps it finite
      m.bias.push_back(b.input({kMlpWidth}, 30 + i));
    }
    s.sync(m.w);
    return m;
  };
  if (want("mlp_step_small")) {
    b.workload("mlp_step_small", [&] {
      auto [x, w, bias] = make_mlp();
      s.set_compile_mode("reduce-overhead");
      tensord::Function step = s.function([&](const std::vector<Tensor>& a) {
        return std::vector<Tensor>{mlp_forward(a[0], w, bias)};
      });
      const auto call = [&] { return step({x})[0]; };
      const double steps = 1.0 / b.seconds_per_function_call(z.small_calls, call);
      const double lazy_steps =
          1.0 / b.seconds_per_call(z.small_calls, [&] { return mlp_forward(x, w, bias); });
      b.print_stage_times("mlp_step_small", z.small_calls, call);
      const tensord::Explanation e = tensord::explain({mlp_forward(x, w, bias)});
      s.set_compile_mode("default");
      std::fprintf(stderr, "%s: mlp_step_small: %u kernels per step, %s\n", kProgram, e.steps,
                   e.captured ? "replayed as a CUDA graph" : "NOT replayed as a CUDA graph");
      b.report("mlp_step_small", steps, "steps/s");
      b.report("mlp_step_small_vs_cudagraph", steps, "steps/s");
      b.report_against("mlp_step_small_lazy", lazy_steps, "steps/s", "mlp_step_small",
                       "torch_eager");
    });
  }
  if (want("mlp_chain_small")) {
    b.workload("mlp_chain_small", [&] {
      auto [x, w, bias] = make_mlp();
      s.set_compile_mode("reduce-overhead");
      tensord::Function step = s.function([&](const std::vector<Tensor>& a) {
        return std::vector<Tensor>{tensord::tanh(mlp_forward(a[0], w, bias))};
      });
      Tensor h = x;
      const auto call = [&] { return h = step({h})[0]; };
      const double steps = 1.0 / b.seconds_per_function_call(z.small_calls, call);
      s.set_compile_mode("default");
      b.report("mlp_chain_small", steps, "steps/s");
      b.report("mlp_chain_small_vs_cudagraph", steps, "steps/s");
    });
  }
}

bool parse(int argc, char** argv, Args& args) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    const char* v = nullptr;
    if (a == "--address" && (v = value())) {
      args.address = v;
    } else if (a == "--cache-dir" && (v = value())) {
      args.cache_dir = v;
    } else if (a == "--daemon-arg" && (v = value())) {
      args.daemon_args.emplace_back(v);
    } else if (a == "--torch-peers" && (v = value())) {
      args.torch_peers = v;
    } else if (a == "--only" && (v = value())) {
      args.only = v;
    } else if (a == "--warmup" && (v = value())) {
      args.warmup = std::atoi(v);
    } else if (a == "--repeats" && (v = value())) {
      args.repeats = std::atoi(v);
    } else if (a == "--smoke") {
      args.smoke = true;
      args.sizes = Sizes{int64_t{256} << 8, int64_t{64} << 8, 1, 1};
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
  if (!probe.usable && !args.smoke) {
    std::fprintf(stderr, "%s: skipped, no usable CUDA device: %s\n", kProgram,
                 probe.why_not.c_str());
    return 77;
  }
  try {
    TorchPeers peers = TorchPeers::read(args.torch_peers);
    std::vector<std::string> daemon_args;
    if (!args.smoke) daemon_args = {"--device", "cuda"};
    if (!args.cache_dir.empty())
      daemon_args.insert(daemon_args.end(), {"--cache-dir", args.cache_dir});
    daemon_args.insert(daemon_args.end(), args.daemon_args.begin(), args.daemon_args.end());
    tensord::bench::BenchDaemon daemon(args.address,
                                       tensord::test::DaemonOptions::with_args(daemon_args));
    Session s = tensord::connect(daemon.address());
    const auto& devices = s.info().devices;
    if (devices.empty() || (devices[0].kind != "cuda" && !args.smoke)) {
      std::fprintf(stderr, "%s: skipped, the daemon at %s runs on the %s\n", kProgram,
                   daemon.address().c_str(), devices.empty() ? "?" : devices[0].kind.c_str());
      return 77;
    }
    std::fprintf(stderr, "%s: %s (%s)\n", kProgram, devices[0].name.c_str(), probe.name.c_str());
    GpuBench bench(s, args.warmup, args.repeats, std::move(peers), kProgram);
    run_all(bench, args);
    return bench.failures() == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", kProgram, e.what());
    return 1;
  }
}
