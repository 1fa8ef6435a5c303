// What the GPU benchmarks (bench/gpu, bench/fusion's GPU half) share: PyTorch's figures read
// from a peer script's JSON lines, and timing of work through the daemon with the inputs
// resident on the device and the results kept there (no upload or download timed).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tensord/client.h"

namespace tensord::bench {

// (bench, impl) -> value from a peer script's lines ({"bench", "impl", "value", ...}); impls in
// the order they came. Lines without a numeric value (notes, errors) are skipped.
struct TorchPeers {
  std::map<std::string, std::vector<std::pair<std::string, double>>> by_bench;

  // Empty path: no peers. Throws std::runtime_error when the file cannot be read.
  static TorchPeers read(const std::string& path);
  std::optional<double> find(const std::string& bench, const std::string& impl) const;
};

class GpuBench {
 public:
  GpuBench(Session& s, int warmup, int repeats, TorchPeers peers, std::string program)
      : s_(s),
        warmup_(warmup),
        repeats_(repeats),
        peers_(std::move(peers)),
        program_(std::move(program)) {}

  // One figure: tensord's value against each PyTorch peer of the same name (and `extra`).
  void report(const std::string& name, double value, const std::string& unit,
              const std::vector<std::pair<std::string, double>>& extra = {});
  // One figure against one peer: the PyTorch line (bench, impl) when present, else "none".
  void report_against(const std::string& name, double value, const std::string& unit,
                      const std::string& peer_bench, const std::string& impl);

  // Runs `body`, reporting a failure (an op the backend lacks, say) as an {"bench", "error"}
  // line without stopping the rest.
  void workload(const std::string& name, const std::function<void()>& body);

  // Median seconds of materializing make() on the daemon, the kernels included: one sync
  // point per repeat (the run, then a one-element read queued behind its kernels).
  double seconds(const std::function<Tensor()>& make);
  // Median seconds per call of `calls` back-to-back runs of make() (each sent with sync, its
  // result kept on the device until the next one replaces it) and one wait for the device at
  // the end: the same method as bench/fusion/torch_gpu_peer.py's wall clock, so that
  // launch-bound figures include what a caller pays per call and nothing else.
  double seconds_per_call(int calls, const std::function<Tensor()>& make);
  // The same for calls of a tensord::Function, which return without waiting for the daemon
  // (its calls queue in order, as torch's launches do): `calls` calls back to back, then the
  // wait for the device behind the last.
  double seconds_per_function_call(int calls, const std::function<Tensor()>& call);

  // Where a call's time goes, on stderr (the figures are measured without it): `calls` more
  // calls of make() under a profile, the mean per call of each stage, step and (on a GPU, from
  // CUPTI) kernel or copy, the longest twelve.
  void print_stage_times(const std::string& figure, int calls, const std::function<Tensor()>& make);

  // A float32 tensor of `shape` from host values in [-2, 2), uploaded once and resident on the
  // device (needs no creation kernel).
  Tensor input(const ir::Shape& shape, uint32_t seed);

  Session& session() { return s_; }
  int warmup() const { return warmup_; }
  int repeats() const { return repeats_; }
  const TorchPeers& peers() const { return peers_; }
  int failures() const { return failures_; }

 private:
  Session& s_;
  int warmup_, repeats_;
  TorchPeers peers_;
  std::string program_;  // for messages
  int failures_ = 0;
};

// One element of `y`, fetched: its read is queued behind y's kernels on the device's stream,
// so it returns when they have run.
void wait_on_device(const Tensor& y);

}  // namespace tensord::bench
