#include "engine/backends/cpu/epilogue_tuning.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>

#include "engine/cache/cache_file.h"
#include "engine/codegen/emitter.h"

namespace tensord::cpu {
namespace {

template <typename F>
double seconds_of(const F& run) {
  const auto t0 = std::chrono::steady_clock::now();
  run();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

EpilogueTuning::EpilogueTuning(std::string dir, std::string identity)
    : dir_(std::move(dir)), identity_(codegen::hex64(codegen::text_hash(identity))) {}

std::string EpilogueTuning::key(const std::string& problem) const {
  return "matmul-epilogue-" + codegen::hex64(codegen::text_hash(problem)) + "-" + identity_;
}

std::string EpilogueTuning::path(const std::string& key) const {
  return dir_ + "/tune/" + key + ".txt";
}

std::optional<bool> EpilogueTuning::find(const std::string& key) {
  std::lock_guard lock(mutex_);
  if (auto it = decided_.find(key); it != decided_.end()) return it->second;
  if (dir_.empty()) return std::nullopt;
  std::ifstream in(path(key));
  std::string word;
  int fused = -1;
  if (!(in >> word >> fused) || word != "fused" || (fused != 0 && fused != 1)) return std::nullopt;
  decided_[key] = fused == 1;
  ++stats_.from_disk;
  return fused == 1;
}

void EpilogueTuning::store(const std::string& key, const std::string& problem, bool fused) {
  std::lock_guard lock(mutex_);
  decided_[key] = fused;
  ++stats_.measured;
  if (dir_.empty()) return;
  std::error_code ec;
  std::filesystem::create_directories(dir_ + "/tune", ec);
  // A read-only or full directory keeps the decision in memory only. The problem's words are
  // for a reader of the directory; only the first line is read back.
  cache::write_file_atomically(path(key),
                               "fused " + std::to_string(fused ? 1 : 0) + "\n" + problem + "\n");
}

bool EpilogueTuning::run(const std::string& key, const std::string& problem,
                         const std::function<bool()>& fused, const std::function<void()>& unfused) {
  std::optional<bool> decided;
  {
    std::lock_guard lock(mutex_);
    decided = force_;
  }
  if (!decided) decided = find(key);
  if (decided) {
    if (*decided && fused()) return count(true);
    unfused();
    return count(false);
  }
  if (!fused()) {  // warm-up, or a refusal: nothing written
    store(key, problem, false);
    unfused();
    return count(false);
  }
  unfused();  // warm-up
  double best_fused = 0, best_unfused = 0;
  for (int rep = 0; rep < 2; ++rep) {
    const double f = seconds_of(fused), u = seconds_of(unfused);
    best_fused = rep == 0 ? f : std::min(best_fused, f);
    best_unfused = rep == 0 ? u : std::min(best_unfused, u);
  }
  const bool fuse = best_fused <= best_unfused;
  store(key, problem, fuse);
  if (fuse) fused();  // the last run above was the unfused one
  return count(fuse);
}

bool EpilogueTuning::count(bool fused) {
  std::lock_guard lock(mutex_);
  ++(fused ? stats_.fused_runs : stats_.unfused_runs);
  return fused;
}

void EpilogueTuning::force(std::optional<bool> fused) {
  std::lock_guard lock(mutex_);
  force_ = fused;
}

EpilogueTuning::Stats EpilogueTuning::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

}  // namespace tensord::cpu
