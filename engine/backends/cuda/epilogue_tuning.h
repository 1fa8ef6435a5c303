// Matmul epilogues on CUDA: whether cuBLASLt's epilogue (lt_epilogue.h) beats the matmul
// followed by the chain's generated kernel is measured on the first uncaptured run of a problem
// and remembered in memory and in the kernel cache's directory (`tune/cuda-matmul-epilogue-
// <problem hash>-<identity hash>.txt`, beside launch_tuning.h's and the CPU backend's
// decisions), so that a restarted daemon, or a second backend on the same directory, reuses it
// without measuring. Plain C++ (no CUDA): the backend passes the two paths and a timer; tested on
// any machine. The rule, as the CPU's (engine/backends/cpu/epilogue_tuning.h):
//  - Each path runs once to warm up, then twice more, alternating; the smaller of each path's
//    times counts and the fused path wins ties. A problem cuBLASLt refuses (no algorithm) is
//    decided unfused without timing. The winner runs last, so the output is its.
//  - A problem is a shape class: the epilogue, the float32 precision, the batch count, m, k, n
//    and each operand's order (row- or column-major, or broadcast across the batch); not the
//    leading dimensions. The identity is the device's name, compute capability, SM count and the
//    cuBLASLt version, so a directory shared by two kinds of machine keeps one per kind.
//  - Files are written under a private name and renamed into place; a file that does not parse
//    is ignored, measured again and rewritten. A read-only directory keeps decisions in memory.
//  - While a CUDA graph is recorded nothing is timed: an undecided problem runs unfused and
//    stays undecided.
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>

namespace tensord::cuda {

// The problem's text (its shape class) for out = epilogue(a @ b) with operands of these shapes
// and strides at float32 precision `precision` (its enum value).
std::string epilogue_problem(const std::string& epilogue, std::span<const int64_t> a_shape,
                             std::span<const int64_t> a_strides, std::span<const int64_t> b_shape,
                             std::span<const int64_t> b_strides, std::span<const int64_t> out_shape,
                             int precision);

// The decision file's text ("fused 0|1\n" then the problem, for a reader of the directory) and
// its parser (the first line only; nullopt on anything else).
std::string format_epilogue_decision(bool fused, const std::string& problem);
std::optional<bool> parse_epilogue_decision(const std::string& text);

class CudaEpilogueTuning {
 public:
  struct Stats {
    uint64_t measured = 0;    // problems timed in this process
    uint64_t from_disk = 0;   // decisions read from the directory (another run measured them)
    uint64_t fused_runs = 0;  // runs (not counting measuring ones) through each path
    uint64_t unfused_runs = 0;
  };
  // `seconds(f)`: the time f takes, waited for on the device.
  using Timer = std::function<double(const std::function<void()>&)>;

  // `dir`: the kernel cache's directory ("" keeps decisions in memory only); `identity`: what
  // besides the problem decides the result (device, compute capability, cuBLASLt version).
  CudaEpilogueTuning(std::string dir, const std::string& identity);

  std::string key(const std::string& problem) const;
  // Where `key`'s decision is kept on disk ("" without a directory).
  std::string path(const std::string& key) const;

  // Runs `key`'s problem by its decision: remembered, read from the directory, or (when
  // `may_measure`) measured now with `seconds` and stored. `fused` runs the fused path and
  // returns false when cuBLASLt refuses it (having queued nothing); `unfused` runs the other.
  // Returns whether the output was written by the fused path.
  bool run(const std::string& key, const std::string& problem, const std::function<bool()>& fused,
           const std::function<void()>& unfused, const Timer& seconds, bool may_measure);

  std::optional<bool> find(const std::string& key);
  Stats stats() const;

 private:
  void store(const std::string& key, const std::string& problem, bool fused);
  bool count(bool fused);

  std::string dir_;
  std::string identity_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, bool> decided_;
  Stats stats_;
};

}  // namespace tensord::cuda
