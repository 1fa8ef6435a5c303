#include "engine/backends/cpu/launch_tuning.h"

#include <algorithm>
#include <bit>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine/cache/cache_file.h"
#include "engine/codegen/emitter.h"

namespace tensord::cpu {
namespace {

namespace fs = std::filesystem;

int bits(int64_t v) {
  return v <= 0 ? 0 : static_cast<int>(std::bit_width(static_cast<uint64_t>(v)));
}

double seconds_of(const std::function<void(int)>& run, int threads) {
  const auto t0 = std::chrono::steady_clock::now();
  run(threads);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

LaunchTuning::LaunchTuning(std::string dir, std::string identity)
    : dir_(std::move(dir)), identity_(codegen::hex64(codegen::text_hash(identity))) {}

std::string LaunchTuning::key(const std::string& kernel, int64_t parallel, int64_t per_unit,
                              int threads) const {
  return kernel + "-p" + std::to_string(bits(parallel)) + "-u" + std::to_string(bits(per_unit)) +
         "-t" + std::to_string(threads) + "-" + identity_;
}

std::vector<int> LaunchTuning::candidates(int max_threads) {
  std::vector<int> c;
  for (int t = 1; t < max_threads; t *= 2) c.push_back(t);
  c.push_back(std::max(1, max_threads));
  return c;
}

std::string LaunchTuning::path(const std::string& key) const {
  return dir_ + "/tune/" + key + ".txt";
}

std::optional<int> LaunchTuning::find(const std::string& key) {
  std::lock_guard lock(mutex_);
  if (auto it = decided_.find(key); it != decided_.end()) return it->second;
  if (dir_.empty()) return std::nullopt;
  std::ifstream in(path(key));
  std::string word;
  int threads = 0;
  if (!(in >> word >> threads) || word != "threads" || threads < 1) return std::nullopt;
  decided_[key] = threads;
  ++stats_.from_disk;
  return threads;
}

void LaunchTuning::store(const std::string& key, int threads) {
  std::lock_guard lock(mutex_);
  decided_[key] = threads;
  ++stats_.measured;
  if (dir_.empty()) return;
  std::error_code ec;
  fs::create_directories(dir_ + "/tune", ec);
  // A read-only or full directory keeps the decision in memory only.
  cache::write_file_atomically(path(key), "threads " + std::to_string(threads) + "\n");
}

int LaunchTuning::threads_for(const std::string& key, int max_threads,
                              const std::function<void(int)>& run) {
  if (std::optional<int> t = find(key)) return std::min(*t, std::max(1, max_threads));
  const std::vector<int> cands = candidates(max_threads);
  int best = cands.back();
  if (cands.size() > 1) {
    run(best);  // warm-up: first touch of the outputs, caches
    double best_s = 0;
    for (auto it = cands.rbegin(); it != cands.rend(); ++it) {
      double s = seconds_of(run, *it);
      for (int rep = 0; rep < 2; ++rep) s = std::min(s, seconds_of(run, *it));
      if (it == cands.rbegin() || s < best_s) {
        best_s = s;
        best = *it;
      }
    }
  }
  store(key, best);
  return best;
}

LaunchTuning::Stats LaunchTuning::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

}  // namespace tensord::cpu
