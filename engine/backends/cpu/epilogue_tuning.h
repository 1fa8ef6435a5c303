// Matmul epilogues on the CPU: whether oneDNN's matmul with post-ops beats the matmul followed
// by the chain's generated kernel is measured, never assumed, once per problem (dtype, batch,
// m, k, n, operand orders, epilogue, threads: Matmul::epilogue_problem), and remembered in
// memory and in the kernel cache's directory (`tune/`, beside launch_tuning.h's decisions),
// so a restarted daemon reuses it. The rule:
//  - Plans fuse matmul epilogues in every mode that fuses (all but eager); the first run of a
//    new problem measures: each path runs once to warm up, then twice more, alternating; the
//    smaller of each path's two times counts, and fused wins ties. A problem oneDNN refuses is
//    decided unfused without timing.
//  - Both paths compute the whole output from the same inputs (which neither writes), so the
//    runs while measuring change nothing but the time; the winner runs last.
//  - Entries are keyed by the compiler, CPU and oneDNN identity too, written under a temporary
//    name and renamed into place; a file that does not parse is ignored and measured again.
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

namespace tensord::cpu {

class EpilogueTuning {
 public:
  struct Stats {
    uint64_t measured = 0;    // problems timed in this process
    uint64_t from_disk = 0;   // decisions read from the directory
    uint64_t fused_runs = 0;  // runs (not counting measuring ones) through each path
    uint64_t unfused_runs = 0;
  };

  // `dir`: the kernel cache's directory ("" keeps decisions in memory only); `identity`: what
  // besides the problem decides the result (compiler, CPU, oneDNN version).
  EpilogueTuning(std::string dir, std::string identity);

  std::string key(const std::string& problem) const;

  // Whether `key` runs fused: remembered, or measured now and remembered. `fused` runs the
  // fused path and returns false when the library refuses it (having written nothing);
  // `unfused` runs the other. Leaves the output as the chosen path wrote it.
  bool run(const std::string& key, const std::string& problem, const std::function<bool()>& fused,
           const std::function<void()>& unfused);

  std::optional<bool> find(const std::string& key);
  Stats stats() const;

  // For benchmarks and tests: every problem runs fused (true; unfused where the library
  // refuses) or unfused (false) without measuring; nullopt measures again.
  void force(std::optional<bool> fused);

 private:
  void store(const std::string& key, const std::string& problem, bool fused);
  bool count(bool fused);
  std::string path(const std::string& key) const;

  std::string dir_;
  std::string identity_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, bool> decided_;
  Stats stats_;
  std::optional<bool> force_;
};

}  // namespace tensord::cpu
