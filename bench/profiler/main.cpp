// bench/profiler: what profiling costs. Starts its own daemon (the real binary) unless
// --address is given, and prints JSON lines (bench/common/figure.h):
//   profile_overhead_chain   a 1000-op elementwise chain per sync, with tracing and memory
//                            recording on, vs the same with the profile off (goal ratio <= 1.05)
//   profile_overhead_matmul  a 512x512 float32 matmul per sync, on vs off (goal <= 1.05)
//   profile_off_overhead     the chain on a session whose profile was started and stopped, vs
//                            a session of the same daemon never profiled (goal <= 1.01)
//   trace_bytes_per_op       compact trace bytes per op of the chain (tracing and memory on),
//                            vs the Chrome JSON of the same trace (goal <= 100 bytes per op)
// With --device cuda (a daemon of its own on the GPU; exit 77 without a usable device), one
// figure instead:
//   profile_overhead_replay  a 200-kernel plan replayed as a CUDA graph (reduce-overhead mode)
//                            per sync, on vs off (goal ratio <= 1.05): what tracing costs when
//                            a run is one graph launch and CUPTI records its kernels. The plan
//                            is bench/common/launch_bound.h's replay_ops since 2026-11-28: the
//                            one before (tanh or an affine op, then a transpose, 100 times) had
//                            become a few kernels once views fused into their consumers, and
//                            the H200's 1.50-1.64 were measured on it
// On and off runs alternate, so that drift of a shared machine hits both alike. The chain runs
// in "eager" mode, one step (and one step record) per op: fused, 1000 ops would be a couple of
// kernels and the profiler's per-op cost would not show.
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "bench/common/bench_daemon.h"
#include "bench/common/figure.h"
#include "bench/common/launch_bound.h"
#include "bench/gpu/cuda_peer.h"
#include "engine/profiler/chrome.h"
#include "tensord/client.h"

namespace {

using tensord::bench::median;
using tensord::bench::print_figure;

double seconds(const std::function<void()>& fn) {
  auto t0 = std::chrono::steady_clock::now();
  fn();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

struct Pair {
  double on = 0, off = 0;
};

// Medians of `repeats` pairs of off and on runs of `work`, in alternating order. Each on run
// is a profile of its own (started and stopped outside the timing), `runs` calls long.
Pair on_off(tensord::Session& s, int repeats, int runs, const std::function<void()>& work) {
  for (int i = 0; i < 3; ++i) work();
  auto batch = [&] {
    for (int k = 0; k < runs; ++k) work();
  };
  std::vector<double> on, off;
  for (int i = 0; i < repeats; ++i) {
    if (i % 2 == 0) off.push_back(seconds(batch));
    auto prof = s.profile({.trace = true, .memory = true, .buffer_records = 1 << 20});
    on.push_back(seconds(batch));
    prof.stop();
    if (prof.dropped() != 0) std::fprintf(stderr, "warning: profile dropped records\n");
    if (i % 2 == 1) off.push_back(seconds(batch));
  }
  return {median(on) / runs, median(off) / runs};
}

// A session on a thread of its own (sessions are bound to their thread), running one job at a
// time for the caller: two of them let profile_off_overhead alternate between two sessions.
class SessionThread {
 public:
  explicit SessionThread(const std::string& address)
      : thread_([this, address] { loop(address); }) {}
  ~SessionThread() {
    run(nullptr);
    thread_.join();
  }
  // Runs `job` on the session's thread and waits for it; nullptr ends the thread.
  void run(std::function<void(tensord::Session&)> job) {
    std::unique_lock lock(mu_);
    job_ = std::move(job);
    pending_ = true;
    cv_.notify_all();
    cv_.wait(lock, [&] { return !pending_; });
    if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
  }

 private:
  void loop(const std::string& address) {
    std::optional<tensord::Session> s;
    for (;;) {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return pending_; });
      if (!job_) {
        pending_ = false;
        cv_.notify_all();
        return;
      }
      try {
        if (!s) s = tensord::connect(address);
        job_(*s);
      } catch (...) {
        error_ = std::current_exception();
      }
      pending_ = false;
      cv_.notify_all();
    }
  }

  std::mutex mu_;
  std::condition_variable cv_;
  std::function<void(tensord::Session&)> job_;
  bool pending_ = false;
  std::exception_ptr error_;
  std::thread thread_;  // last: starts after the members it uses
};

// The chain on two sessions of one daemon: one never profiled, one profiled once (started and
// stopped) before the timing. Batches alternate between them.
Pair off_overhead(const std::string& address, int repeats, int ops) {
  SessionThread never(address), stopped(address);
  std::vector<double> a, b;
  struct Inputs {
    std::optional<tensord::Tensor> x, y;
  };
  Inputs in_never, in_stopped;
  auto setup = [ops](Inputs& in, bool profile_once) {
    return [&in, profile_once, ops](tensord::Session& s) {
      s.set_compile_mode("eager");
      in.x = s.from_vector<float>(std::vector<float>(16, 0.5f), {16});
      in.y = s.from_vector<float>(std::vector<float>(16, 0.999f), {16});
      s.sync({*in.x, *in.y});
      if (profile_once) s.profile().stop();
      (void)ops;
    };
  };
  never.run(setup(in_never, false));
  stopped.run(setup(in_stopped, true));
  auto timed = [ops](Inputs& in, std::vector<double>& out) {
    return [&in, &out, ops](tensord::Session&) {
      out.push_back(seconds([&] {
                      for (int k = 0; k < 5; ++k) {
                        tensord::Tensor y = *in.x;
                        for (int i = 0; i < ops; ++i) y = (i % 2 == 0) ? y * *in.y : y + *in.y;
                        y.to_vector<float>();
                      }
                    }) /
                    5);
    };
  };
  for (int i = 0; i < 3; ++i) {
    std::vector<double> warm;
    never.run(timed(in_never, warm));
    stopped.run(timed(in_stopped, warm));
  }
  for (int i = 0; i < repeats; ++i) {
    if (i % 2 == 0) never.run(timed(in_never, a));
    stopped.run(timed(in_stopped, b));
    if (i % 2 == 1) never.run(timed(in_never, a));
  }
  // Tensors belong to their session's thread: drop them there.
  never.run([&](tensord::Session&) { in_never = {}; });
  stopped.run([&](tensord::Session&) { in_stopped = {}; });
  return {median(b), median(a)};
}

// profile_overhead_replay on a daemon of its own on the GPU (or the one at `address`).
int run_gpu(std::string address) {
  const tensord::bench::CudaProbe probe = tensord::bench::probe_cuda();
  if (!probe.usable) {
    std::fprintf(stderr, "tensord-bench-profiler: skipped, no usable CUDA device: %s\n",
                 probe.why_not.c_str());
    return 77;
  }
  const tensord::bench::BenchDaemon daemon(
      address, tensord::test::DaemonOptions::with_args({"--device", "cuda"}));
  auto s = tensord::connect(daemon.address());
  const auto& devices = s.info().devices;
  if (devices.empty() || devices[0].kind != "cuda") {
    std::fprintf(stderr, "tensord-bench-profiler: skipped, the daemon at %s runs on the %s\n",
                 daemon.address().c_str(), devices.empty() ? "?" : devices[0].kind.c_str());
    return 77;
  }
  s.set_compile_mode("reduce-overhead");
  auto x = s.rand({64, 64}, 1);
  s.sync({x});
  auto run = [&] { s.sync({tensord::bench::replay_ops(x)}); };
  const tensord::Explanation e = tensord::explain({tensord::bench::replay_ops(x)});
  std::fprintf(stderr, "tensord-bench-profiler: %s, %u kernels per run, %s\n",
               devices[0].name.c_str(), e.steps,
               e.captured ? "replayed as a CUDA graph" : "NOT replayed as a CUDA graph");
  Pair r = on_off(s, 41, 20, run);
  print_figure("profile_overhead_replay", r.on * 1e6, "us", "profile_off", r.off * 1e6);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string address;
  bool gpu = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--address") == 0 && i + 1 < argc) {
      address = argv[++i];
    } else if (std::strcmp(argv[i], "--device") == 0 && i + 1 < argc &&
               std::strcmp(argv[i + 1], "cuda") == 0) {
      gpu = true;
      ++i;
    } else {
      std::fprintf(stderr,
                   "usage: tensord-bench-profiler [--address unix:PATH|tcp:HOST:PORT] "
                   "[--device cuda]\n");
      return 2;
    }
  }
  try {
    if (gpu) return run_gpu(address);
    const tensord::bench::BenchDaemon daemon(address);
    address = daemon.address();
    auto s = tensord::connect(address);
    s.set_compile_mode("eager");
    constexpr int kOps = 1000;
    auto a = s.from_vector<float>(std::vector<float>(16, 0.5f), {16});
    auto b = s.from_vector<float>(std::vector<float>(16, 0.999f), {16});
    s.sync({a, b});
    auto chain = [&] {
      tensord::Tensor y = a;
      for (int i = 0; i < kOps; ++i) y = (i % 2 == 0) ? y * b : y + b;
      y.to_vector<float>();
    };

    for (int i = 0; i < 3; ++i) chain();
    Pair c = on_off(s, 41, 5, chain);
    print_figure("profile_overhead_chain", c.on * 1e6 / kOps, "us/op", "profile_off",
                 c.off * 1e6 / kOps);

    auto m1 = s.rand({512, 512}, 1);
    auto m2 = s.rand({512, 512}, 2);
    s.sync({m1, m2});
    Pair m = on_off(s, 41, 5, [&] { s.sync({tensord::matmul(m1, m2)}); });
    print_figure("profile_overhead_matmul", m.on * 1e3, "ms", "profile_off", m.off * 1e3);

    auto prof = s.profile({.trace = true, .memory = true, .buffer_records = 1 << 20});
    constexpr int kRuns = 20;
    for (int i = 0; i < kRuns; ++i) chain();
    prof.stop();
    std::string path = "/tmp/tensord-bench-profiler-" + std::to_string(::getpid()) + ".tdt";
    prof.export_compact(path);
    FILE* f = std::fopen(path.c_str(), "rb");
    std::fseek(f, 0, SEEK_END);
    double compact = static_cast<double>(std::ftell(f));
    std::fclose(f);
    std::remove(path.c_str());
    double json = static_cast<double>(prof.chrome_trace_json().size());
    double ops = static_cast<double>(kRuns) * kOps;
    if (prof.dropped() != 0)
      std::fprintf(stderr, "warning: %llu records dropped\n",
                   static_cast<unsigned long long>(prof.dropped()));
    print_figure("trace_bytes_per_op", compact / ops, "B/op", "chrome_json", json / ops);

    // Last, on two sessions of their own (on threads of their own: this thread has `s`).
    Pair o = off_overhead(address, 41, kOps);
    print_figure("profile_off_overhead", o.on * 1e6 / kOps, "us/op", "never_profiled",
                 o.off * 1e6 / kOps);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tensord-bench-profiler: %s\n", e.what());
    return 1;
  }
  return 0;
}
