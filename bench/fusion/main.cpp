// bench/fusion: generated kernels against eager execution and NumPy. Starts its own daemons
// (the real binary) on a private cache directory and prints JSON lines (bench/common/figure.h):
//   cpu_chain8_16M           tanh(exp(-x*x)*2+1)*0.5 - sqrt(abs(x)) on 16M float32, effective
//                            GB/s (bytes read + written once), vs NumPy in this run
//   cpu_softmax_4096x4096    softmax over rows, GB/s, vs the same graph in "eager" mode (the
//                            two measured in turn: fused_and_eager_gbps)
//   cpu_layernorm_4096x4096  layer_norm over rows (weight, bias), GB/s, vs "eager"
//   cpu_softmax_262144x64, cpu_layernorm_262144x64  the same over short rows (attention
//                            heads, small layers), where a row's fixed costs show
//   *_vs_numpy               the same fused figures against NumPy
//   cpu_linear_bias_gelu_MxKxN  ms of gelu(linear(x, w, b)) (x [M, K], w [N, K]) through the
//                            daemon, fused into one oneDNN matmul or not as the daemon measured,
//                            vs the same graph in "eager" mode; *_vs_onednn: vs oneDNN called
//                            directly in this process with the same post-ops (no round trip)
//   cpu_transpose_colsum_4096x4096  sum over axis 0 of exp(x * 0.5).T + y (x, y [4096, 4096]
//                            float32): a transpose in the chain and a column sum, one kernel
//                            when fused; GB/s of the two inputs read once, vs "eager"
//   warm_start               ms to the first result of a 30-kernel graph on a fresh daemon
//                            with a warm disk cache, vs a fresh daemon with an empty one
//   cold_chain_200, cold_slice_sum_1000  ms to the first result on a fresh daemon with an
//                            empty cache and --background-compile off (the compile included)
//                            of a 200-op elementwise chain on 1M floats and of a running sum
//                            over 1000 scalar slices (notebook loops), vs the same first run
//                            in "eager" mode
//   *_background             the same with the daemon's default, --background-compile on: the
//                            first run goes unfused while the kernels compile, vs "eager"
// The other figures run with --background-compile off: they time fused kernels, which a
// background compile would hand over partway through the timed runs.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "bench/common/figure.h"
#include "bench/common/launch_bound.h"
#include "bench/fusion/onednn_peer.h"
#include "tensord/client.h"
#include "tests/support/daemon/daemon_process.h"

namespace {

using tensord::Session;
using tensord::Tensor;
using tensord::bench::median_seconds;
using tensord::bench::print_figure;

std::map<std::string, double> numpy_peers() {
  const std::string script = std::string(TENSORD_SOURCE_DIR) + "/bench/fusion/numpy_peer.py";
  FILE* p = popen(("/usr/bin/python3 " + script).c_str(), "r");
  std::map<std::string, double> out;
  if (!p) return out;
  char name[64];
  double v = 0;
  while (std::fscanf(p, "%63s %lf", name, &v) == 2) out[name] = v;
  pclose(p);
  return out;
}

Tensor chain8(const Tensor& x) {
  return tensord::tanh(tensord::exp(-(x * x)) * 2.0f + 1.0f) * 0.5f -
         tensord::sqrt(tensord::abs(x));
}

// Effective GB/s of materializing f() (bytes = read + written once), median of repeats.
template <typename F>
double gbps(Session& s, double bytes, F f) {
  const double t = median_seconds(2, 7, [&] { s.sync({f()}); });
  return bytes / t / 1e9;
}

// The same graph in "default" (fused) and in "eager" mode, effective GB/s of each: samples
// taken in turn (one fused, one eager, ...), so that both sides see the same load on a shared
// machine (measured one after the other, the eager peer swung 4.6-8.0 GB/s between runs).
template <typename F>
std::pair<double, double> fused_and_eager_gbps(Session& s, double bytes, F f) {
  std::vector<double> fused, eager;
  auto sample = [&](const char* mode, std::vector<double>* into) {
    s.set_compile_mode(mode);
    const auto t0 = std::chrono::steady_clock::now();
    s.sync({f()});
    const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (into) into->push_back(t);
  };
  for (int i = 0; i < 2; ++i) sample("default", nullptr), sample("eager", nullptr);
  for (int i = 0; i < 9; ++i) sample("default", &fused), sample("eager", &eager);
  s.set_compile_mode("default");
  return {bytes / tensord::bench::median(fused) / 1e9, bytes / tensord::bench::median(eager) / 1e9};
}

// 30 segments of five elementwise ops each, every segment a different kernel (replay_ops).
Tensor thirty_kernels(Session& s) {
  return tensord::bench::replay_ops(s.rand({64, 64}, 7), 30);
}

// chain8, softmax and layer_norm, against NumPy and eager.
void elementwise_figures(Session& s, std::map<std::string, double>& numpy) {
  Tensor x = s.rand({16 * 1024 * 1024}, 1) * 4.0f - 2.0f;
  s.sync({x});
  const double bytes = 2.0 * 16 * 1024 * 1024 * 4;
  const double chain = gbps(s, bytes, [&] { return chain8(x); });
  print_figure("cpu_chain8_16M", chain, "GB/s", "numpy", numpy["chain8"]);

  Tensor m = s.rand({4096, 4096}, 2) * 4.0f - 2.0f;
  Tensor w = s.rand({4096}, 3);
  Tensor b = s.rand({4096}, 4);
  s.sync({m, w, b});
  const double mb = 2.0 * 4096 * 4096 * 4;
  auto softmax = [&] { return tensord::softmax(m, -1); };
  auto layernorm = [&] { return tensord::layer_norm(m, 1, w, b); };
  const auto [sm, sm_eager] = fused_and_eager_gbps(s, mb, softmax);
  const auto [ln, ln_eager] = fused_and_eager_gbps(s, mb, layernorm);
  print_figure("cpu_softmax_4096x4096", sm, "GB/s", "eager", sm_eager);
  print_figure("cpu_layernorm_4096x4096", ln, "GB/s", "eager", ln_eager);
  print_figure("cpu_softmax_4096x4096_vs_numpy", sm, "GB/s", "numpy", numpy["softmax"]);
  print_figure("cpu_layernorm_4096x4096_vs_numpy", ln, "GB/s", "numpy", numpy["layernorm"]);

  Tensor rows = s.rand({262144, 64}, 5) * 4.0f - 2.0f;
  Tensor w64 = s.rand({64}, 6);
  Tensor b64 = s.rand({64}, 7);
  s.sync({rows, w64, b64});
  const auto [sm64, sm64_eager] =
      fused_and_eager_gbps(s, mb, [&] { return tensord::softmax(rows, -1); });
  const auto [ln64, ln64_eager] =
      fused_and_eager_gbps(s, mb, [&] { return tensord::layer_norm(rows, 1, w64, b64); });
  print_figure("cpu_softmax_262144x64", sm64, "GB/s", "eager", sm64_eager);
  print_figure("cpu_layernorm_262144x64", ln64, "GB/s", "eager", ln64_eager);
  print_figure("cpu_softmax_262144x64_vs_numpy", sm64, "GB/s", "numpy", numpy["softmax64"]);
  print_figure("cpu_layernorm_262144x64_vs_numpy", ln64, "GB/s", "numpy", numpy["layernorm64"]);
}

// A view inside a chain and a reduction over the leading axis (issue 6's boundaries).
void transpose_colsum(Session& s) {
  Tensor x = s.rand({4096, 4096}, 5);
  Tensor y = s.rand({4096, 4096}, 6);
  s.sync({x, y});
  const double bytes = 2.0 * 4096 * 4096 * 4;
  auto f = [&] { return (tensord::transpose((x * 0.5f).exp(), 0, 1) + y).sum({0}); };
  const auto [fused, eager] = fused_and_eager_gbps(s, bytes, f);
  print_figure("cpu_transpose_colsum_4096x4096", fused, "GB/s", "eager", eager);
}

// What the daemon measured for an m x k x n epilogue problem, from its cache directory's
// decisions (engine/backends/cpu/epilogue_tuning.h): "fused", "unfused" or "?".
std::string decision(const std::string& cache_dir, int64_t m, int64_t k, int64_t n) {
  const std::string want =
      " m" + std::to_string(m) + " k" + std::to_string(k) + " n" + std::to_string(n) + " ";
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(cache_dir + "/tune", ec)) {
    if (!e.path().filename().string().starts_with("matmul-epilogue-")) continue;
    std::ifstream in(e.path());
    std::string word, problem;
    int fused = -1;
    in >> word >> fused;
    std::getline(in >> std::ws, problem);
    if (problem.find(want) != std::string::npos) return fused == 1 ? "fused" : "unfused";
  }
  return "?";
}

// gelu(linear(x, w, b)), default mode against eager and against oneDNN directly; the daemon's
// decision for the shape goes to stderr.
void linear_bias_gelu(Session& s, const std::string& cache_dir, int64_t m, int64_t k, int64_t n) {
  Tensor x = s.rand({m, k}, 5) - 0.5f;
  Tensor w = (s.rand({n, k}, 6) - 0.5f) * 0.1f;
  Tensor b = s.rand({n}, 7);
  s.sync({x, w, b});
  auto f = [&] { return tensord::gelu(tensord::linear(x, w, b)); };
  const auto ms = [&] { return 1e3 * median_seconds(2, 7, [&] { s.sync({f()}); }); };
  const double fused = ms();
  s.set_compile_mode("eager");
  const double eager = ms();
  s.set_compile_mode("default");
  const double onednn = 1e3 * tensord::bench::onednn_linear_bias_gelu_seconds(m, k, n);
  const std::string name = "cpu_linear_bias_gelu_" + std::to_string(m) + "x" + std::to_string(k) +
                           "x" + std::to_string(n);
  print_figure(name, fused, "ms", "eager", eager);
  print_figure(name + "_vs_onednn", fused, "ms", "onednn", onednn);
  std::fprintf(stderr, "%s: the daemon runs it %s\n", name.c_str(),
               decision(cache_dir, m, k, n).c_str());
}

double first_result_ms(const std::string& cache_dir, bool expect_warm) {
  tensord::test::DaemonProcess daemon(tensord::test::DaemonOptions::with_args(
      {"--cache-dir", cache_dir, "--background-compile", "off"}));
  Session s = tensord::connect(daemon.address());
  const auto t0 = std::chrono::steady_clock::now();
  thirty_kernels(s).to_vector<float>();
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  const tensord::SessionStats st = s.stats();
  if (expect_warm && st.kernel_misses != 0) {
    std::fprintf(stderr, "warm_start: the warm daemon compiled %llu kernels\n",
                 static_cast<unsigned long long>(st.kernel_misses));
  }
  if (!expect_warm && st.kernel_misses < 30) {
    std::fprintf(stderr, "warm_start: only %llu kernels compiled\n",
                 static_cast<unsigned long long>(st.kernel_misses));
  }
  return ms;
}

// ms to the first result of f(session) on a fresh daemon with an empty cache in `mode`.
template <typename F>
double first_run_ms(const std::string& cache_dir, const char* mode, F f,
                    const char* background = "off") {
  std::filesystem::remove_all(cache_dir);
  tensord::test::DaemonProcess daemon(tensord::test::DaemonOptions::with_args(
      {"--cache-dir", cache_dir, "--background-compile", background}));
  Session s = tensord::connect(daemon.address());
  s.set_compile_mode(mode);
  const auto t0 = std::chrono::steady_clock::now();
  f(s).template to_vector<float>();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

void cold_loops(const std::string& dir) {
  auto chain = [](Session& s) {
    Tensor y = s.rand({1 << 20}, 3);
    for (int i = 0; i < 100; ++i) y = y * 1.0001f + 0.5f;
    return tensord::sum(y);
  };
  auto slice_sum = [](Session& s) {
    Tensor x = s.rand({1000}, 4);
    Tensor acc = x.slice(0, 0, 1, 1);
    for (int64_t i = 1; i < 1000; ++i) acc = acc + x.slice(0, i, i + 1, 1);
    return acc;
  };
  const double eager_chain = first_run_ms(dir, "eager", chain);
  const double eager_slices = first_run_ms(dir, "eager", slice_sum);
  print_figure("cold_chain_200", first_run_ms(dir, "default", chain), "ms", "eager", eager_chain);
  print_figure("cold_slice_sum_1000", first_run_ms(dir, "default", slice_sum), "ms", "eager",
               eager_slices);
  print_figure("cold_chain_200_background", first_run_ms(dir, "default", chain, "on"), "ms",
               "eager", eager_chain);
  print_figure("cold_slice_sum_1000_background", first_run_ms(dir, "default", slice_sum, "on"),
               "ms", "eager", eager_slices);
}

}  // namespace

// An argument, when given, runs only the figures whose names start with it (cpu_linear, ...).
int main(int argc, char** argv) {
  const std::string only = argc > 1 ? argv[1] : "";
  const auto want = [&](const std::string& name) { return name.starts_with(only); };
  const std::string root = (std::filesystem::temp_directory_path() /
                            ("tensord-bench-fusion-" + std::to_string(getpid())))
                               .string();
  std::filesystem::create_directories(root);
  int rc = 0;
  try {
    std::map<std::string, double> numpy;
    if (want("cpu_chain8") || want("cpu_softmax") || want("cpu_layernorm")) numpy = numpy_peers();
    {
      tensord::test::DaemonProcess daemon(tensord::test::DaemonOptions::with_args(
          {"--cache-dir", root + "/cache", "--background-compile", "off"}));
      Session s = tensord::connect(daemon.address());

      if (want("cpu_chain8") || want("cpu_softmax") || want("cpu_layernorm")) {
        elementwise_figures(s, numpy);
      }
      if (want("cpu_transpose_colsum")) transpose_colsum(s);
      if (want("cpu_linear")) {
        linear_bias_gelu(s, root + "/cache", 64, 256, 256);      // launch-bound: the round trip
        linear_bias_gelu(s, root + "/cache", 2048, 1024, 1024);  // compute-bound
      }
    }
    if (want("cold_")) cold_loops(root + "/cold");
    if (want("warm_start")) {
      const double cold = first_result_ms(root + "/warm", false);  // empty: compiles 30 kernels
      const double warm = first_result_ms(root + "/warm", true);   // fresh daemon, warm cache
      print_figure("warm_start", warm, "ms", "empty_cache", cold);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tensord-bench-fusion: %s\n", e.what());
    rc = 1;
  }
  std::error_code ec;
  std::filesystem::remove_all(root, ec);
  return rc;
}
