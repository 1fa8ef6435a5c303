#include "engine/backends/cuda/launch_tuning.h"

#include <algorithm>
#include <bit>
#include <filesystem>
#include <limits>
#include <sstream>

#include "engine/cache/cache_file.h"
#include "engine/codegen/emitter.h"
#include "engine/ir/error.h"

namespace tensord::cuda {
namespace {

namespace fs = std::filesystem;

int bits(int64_t v) {
  return v <= 0 ? 0 : static_cast<int>(std::bit_width(static_cast<uint64_t>(v)));
}

// The emitted kernels' __launch_bounds__: 256 for pointwise ones, 512 for row ones. A choice
// never names a block above 256 (row kernels keep codegen's block).
constexpr unsigned kMaxBlock = 256;

}  // namespace

std::vector<LaunchChoice> launch_candidates(bool rows) {
  std::vector<LaunchChoice> c{{0, 0}};
  for (unsigned steps : {1u, 4u, 16u}) {
    if (rows) {
      c.push_back({0, steps});
    } else {
      for (unsigned block : {128u, 256u}) c.push_back({block, steps});
    }
  }
  return c;
}

LaunchDims resolve_launch(const LaunchChoice& choice, LaunchDims fallback, int64_t units,
                          int64_t threads_per_unit) {
  if (units < 1 || threads_per_unit < 1) {
    throw Error(ErrorCode::Internal, "resolve_launch: " + std::to_string(units) + " units of " +
                                         std::to_string(threads_per_unit) +
                                         " threads each (both must be at least 1)");
  }
  if (choice.block != 0 && (choice.block > kMaxBlock || choice.block % 32 != 0)) {
    throw Error(ErrorCode::Internal, "resolve_launch: block " + std::to_string(choice.block) +
                                         " (a multiple of 32 up to 256 expected)");
  }
  LaunchDims d;
  d.block = choice.block == 0 ? fallback.block : choice.block;
  if (choice.steps == 0) {
    d.grid = fallback.grid;
    return d;
  }
  const int64_t per_pass = std::max<int64_t>(1, d.block / threads_per_unit);
  const int64_t per_block = per_pass * choice.steps;
  const int64_t grid = (units + per_block - 1) / per_block;
  d.grid = static_cast<unsigned>(std::clamp<int64_t>(grid, 1, std::numeric_limits<int>::max()));
  return d;
}

bool fits(const LaunchChoice& choice, bool rows) {
  return !rows || choice.block == 0;
}

std::string format_choice(const LaunchChoice& choice) {
  return "block " + std::to_string(choice.block) + " steps " + std::to_string(choice.steps) + "\n";
}

std::optional<LaunchChoice> parse_choice(const std::string& text) {
  std::istringstream in(text);
  std::string w1, w2, rest;
  int64_t block = -1, steps = -1;
  if (!(in >> w1 >> block >> w2 >> steps) || w1 != "block" || w2 != "steps") return std::nullopt;
  if (in >> rest) return std::nullopt;  // trailing words: not a file this version wrote
  if (block < 0 || block > kMaxBlock || block % 32 != 0 || steps < 0 || steps > (1 << 20)) {
    return std::nullopt;
  }
  if (steps == 0 && block != 0) return std::nullopt;  // codegen's grid only with its block
  return LaunchChoice{static_cast<unsigned>(block), static_cast<unsigned>(steps)};
}

size_t fastest(const std::vector<double>& seconds) {
  if (seconds.empty()) throw Error(ErrorCode::Internal, "fastest: no timings");
  size_t best = 0;
  for (size_t i = 1; i < seconds.size(); ++i) {
    if (seconds[i] < seconds[best]) best = i;
  }
  return best;
}

CudaLaunchTuning::CudaLaunchTuning(std::string dir, const std::string& identity)
    : dir_(std::move(dir)), identity_(codegen::hex64(codegen::text_hash(identity))) {}

std::string CudaLaunchTuning::key(const std::string& kernel, int64_t units,
                                  int64_t threads_per_unit) const {
  return kernel + "-u" + std::to_string(bits(units)) + "-g" +
         std::to_string(bits(threads_per_unit)) + "-" + identity_;
}

std::string CudaLaunchTuning::path(const std::string& key) const {
  return dir_.empty() ? std::string() : dir_ + "/tune/cuda-" + key + ".txt";
}

std::optional<LaunchChoice> CudaLaunchTuning::find(const std::string& key) {
  std::lock_guard lock(mutex_);
  if (auto it = decided_.find(key); it != decided_.end()) return it->second;
  if (dir_.empty()) return std::nullopt;
  const std::optional<LaunchChoice> c = parse_choice(cache::read_file(path(key)));
  if (!c) return std::nullopt;
  decided_[key] = *c;
  ++stats_.from_disk;
  return c;
}

void CudaLaunchTuning::store(const std::string& key, const LaunchChoice& choice) {
  std::lock_guard lock(mutex_);
  decided_[key] = choice;
  ++stats_.measured;
  if (dir_.empty()) return;
  std::error_code ec;
  fs::create_directories(dir_ + "/tune", ec);
  // A read-only or full directory keeps the decision in memory only.
  cache::write_file_atomically(path(key), format_choice(choice));
}

LaunchChoice CudaLaunchTuning::choice_for(
    const std::string& key, const std::vector<LaunchChoice>& candidates,
    const std::function<double(const LaunchChoice&)>& seconds) {
  if (std::optional<LaunchChoice> c = find(key)) return *c;
  if (candidates.empty()) throw Error(ErrorCode::Internal, "choice_for: no candidates");
  std::vector<double> times;
  times.reserve(candidates.size());
  for (const LaunchChoice& c : candidates) times.push_back(seconds(c));
  const LaunchChoice best = candidates[fastest(times)];
  store(key, best);
  return best;
}

CudaLaunchTuning::Stats CudaLaunchTuning::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

}  // namespace tensord::cuda
