// max-autotune on CUDA: the launch configuration of a generated loop-IR kernel (block size and
// grid) measured once per kernel and shape class, remembered in memory and in the kernel
// cache's directory (`tune/cuda-<key>.txt`, beside the CPU backend's decisions), so that a
// restarted daemon reuses the winner instead of timing again. This file is the decision
// logic alone (no CUDA: tested on any machine); loop_ir_launch.cpp times the candidates with
// CUDA events on the session's stream. The rule:
//  - Only groups planned in mode "max-autotune" are tuned, never while a CUDA graph is being
//    captured (the default configuration then); the other modes use codegen's
//    cuda_launch_config.
//  - Every candidate computes the same values: a pointwise kernel is a grid-stride loop where
//    each element is computed alone, so block and grid are free (blocks up to its
//    __launch_bounds__(256)); a row kernel reduces each row with one block or one thread
//    group whose size depends on the row length only, so its block stays the default (it
//    changes the order of a float sum) and only its grid (rows per block) varies.
//  - A shape class is the kernel (its name, a hash of its source) with the bit lengths of its
//    work units (elements or rows) and of the threads per unit: sizes within a factor of two
//    share a decision. The key carries the device and compiler identity too.
//  - Each distinct resolved configuration runs once to warm up, then three times timed; the
//    smallest time wins, ties to the earlier candidate (the default is first).
//  - A file that does not parse is ignored and measured again.
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace tensord::cuda {

// One candidate, relative to the launch's size so that it applies to a whole shape class.
// block 0: codegen's block; steps 0: codegen's grid (only with its block), else the grid that
// gives each block `steps` passes over the work (at least 1 block).
struct LaunchChoice {
  unsigned block = 0;
  unsigned steps = 0;
  friend bool operator==(const LaunchChoice&, const LaunchChoice&) = default;
};

struct LaunchDims {
  unsigned grid = 1;
  unsigned block = 256;
  friend bool operator==(const LaunchDims&, const LaunchDims&) = default;
};

// The candidates: for a pointwise kernel (`rows` false) blocks 128 and 256 with 1, 4 and 16
// elements per thread; for a row kernel the default block with 1, 4 and 16 steps. The
// default ({0, 0}) is first.
std::vector<LaunchChoice> launch_candidates(bool rows);

// The launch of `choice` for `units` work units (elements, rows) where `threads_per_unit`
// threads share one unit (1 for elements; a row kernel's group size, or its whole block),
// given codegen's configuration `fallback`. Throws tensord::Error(Internal) on a unit count
// below 1 or a block codegen's kernels cannot take.
LaunchDims resolve_launch(const LaunchChoice& choice, LaunchDims fallback, int64_t units,
                          int64_t threads_per_unit);

// Whether `choice` may be used for a row kernel (`rows`) or a pointwise one: a row kernel
// keeps codegen's block (a decision file naming a block for one is ignored: the default runs).
bool fits(const LaunchChoice& choice, bool rows);

// The decision file's text ("block B steps S\n") and its parser (nullopt on anything else).
std::string format_choice(const LaunchChoice& choice);
std::optional<LaunchChoice> parse_choice(const std::string& text);

// The index of the smallest time; ties to the earlier one. Throws on an empty list.
size_t fastest(const std::vector<double>& seconds);

class CudaLaunchTuning {
 public:
  struct Stats {
    uint64_t measured = 0;   // shape classes timed in this process
    uint64_t from_disk = 0;  // decisions read from the directory (another run measured them)
  };

  // `dir`: the kernel cache's directory ("" keeps decisions in memory only); `identity`: what
  // besides the kernel decides the result (device, architecture, NVRTC version and options).
  CudaLaunchTuning(std::string dir, const std::string& identity);

  std::string key(const std::string& kernel, int64_t units, int64_t threads_per_unit) const;

  // The choice for `key`: remembered, read from the directory, or measured now: `seconds`
  // times one candidate (every one of `candidates`, in order) and the fastest is stored.
  LaunchChoice choice_for(const std::string& key, const std::vector<LaunchChoice>& candidates,
                          const std::function<double(const LaunchChoice&)>& seconds);

  std::optional<LaunchChoice> find(const std::string& key);
  Stats stats() const;
  // Where `key`'s decision is kept on disk ("" without a directory).
  std::string path(const std::string& key) const;

 private:
  void store(const std::string& key, const LaunchChoice& choice);

  std::string dir_;
  std::string identity_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, LaunchChoice> decided_;
  Stats stats_;
};

}  // namespace tensord::cuda
