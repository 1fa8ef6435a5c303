// max-autotune on the CPU: the launch configuration of a generated kernel (how many threads
// split its outer loop) measured once per kernel and shape class, remembered in memory and in
// the kernel cache's directory (`tune/`), so that a restarted daemon reuses the winner instead
// of timing again. The rule:
//  - Only plans built in mode "max-autotune" are tuned; the others use every thread.
//  - A shape class is the kernel (its source hash) with the bit lengths of its parallel count
//    and of the work per unit of it: shapes within a factor of two share a decision.
//  - Candidates: 1, 2, 4, ... threads up to the backend's count, and that count. Each runs the
//    kernel three times after one warm-up run; the smallest time wins (ties: more threads).
//  - Entries are keyed by the compiler and CPU identity too (a cache directory shared by two
//    machines keeps a decision per machine), written under a temporary name and renamed into
//    place; a file that does not parse is ignored and measured again.
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace tensord::cpu {

class LaunchTuning {
 public:
  struct Stats {
    uint64_t measured = 0;   // shape classes timed in this process
    uint64_t from_disk = 0;  // decisions read from the directory (another run measured them)
  };

  // `dir`: the kernel cache's directory ("" keeps decisions in memory only); `identity`: what
  // besides the kernel decides the result (compiler, CPU).
  LaunchTuning(std::string dir, std::string identity);

  // The key of a kernel launch: `parallel` units of `per_unit` elements each, on a backend of
  // `threads` threads.
  std::string key(const std::string& kernel, int64_t parallel, int64_t per_unit, int threads) const;

  // The thread count for `key`: remembered, or measured now with `run(threads)` (which runs
  // the kernel once with that many threads) and remembered.
  int threads_for(const std::string& key, int max_threads, const std::function<void(int)>& run);

  std::optional<int> find(const std::string& key);
  Stats stats() const;

  static std::vector<int> candidates(int max_threads);

 private:
  void store(const std::string& key, int threads);
  std::string path(const std::string& key) const;

  std::string dir_;
  std::string identity_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, int> decided_;
  Stats stats_;
};

}  // namespace tensord::cpu
