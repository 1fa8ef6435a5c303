#include "engine/backends/cuda/epilogue_tuning.h"

#include <algorithm>
#include <filesystem>

#include "engine/backends/cuda/matmul_layout.h"
#include "engine/cache/cache_file.h"
#include "engine/codegen/emitter.h"

namespace tensord::cuda {
namespace {

// Appends only: GCC 12 warns (-Wrestrict, falsely) on chains of string operator+.
void word(std::string& s, const char* name, int64_t v) {
  s += name;
  s += std::to_string(v);
}

void dims(std::string& s, std::span<const int64_t> shape, std::span<const int64_t> strides) {
  s += " (";
  for (size_t i = 0; i < shape.size(); ++i) word(s, i == 0 ? "" : ",", shape[i]);
  s += ":";
  for (size_t i = 0; i < strides.size(); ++i) word(s, i == 0 ? "" : ",", strides[i]);
  s += ")";
}

// An operand's order as cuBLASLt takes it: N or T, and "b" when it broadcasts across batches.
void order(std::string& s, const char* name, const LtOperand& o, int64_t batch) {
  s += name;
  s += o.transpose ? "T" : "N";
  if (batch > 1 && o.batch_stride == 0) s += "b";
}

}  // namespace

std::string epilogue_problem(const std::string& epilogue, std::span<const int64_t> a_shape,
                             std::span<const int64_t> a_strides, std::span<const int64_t> b_shape,
                             std::span<const int64_t> b_strides, std::span<const int64_t> out_shape,
                             int precision) {
  std::string s = "float32";
  std::string why_not;
  const std::optional<LtProblem> p =
      describe_lt_matmul(a_shape, a_strides, b_shape, b_strides, out_shape, why_not);
  if (p) {
    // cuBLASLt's m and n are ours swapped, its a our b (matmul_layout.h).
    word(s, " b", p->batch);
    word(s, " m", p->n);
    word(s, " k", p->k);
    word(s, " n", p->m);
    order(s, " a:", p->b, p->batch);
    order(s, " b:", p->a, p->batch);
  } else {
    // A layout cuBLASLt cannot take (it refuses the fused path; decided unfused): the exact
    // shapes and strides, so that nothing else shares the decision.
    dims(s, a_shape, a_strides);
    dims(s, b_shape, b_strides);
  }
  s += ' ';
  s += epilogue;
  word(s, " p", precision);
  return s;
}

std::string format_epilogue_decision(bool fused, const std::string& problem) {
  return std::string("fused ") + (fused ? "1" : "0") + "\n" + problem + "\n";
}

std::optional<bool> parse_epilogue_decision(const std::string& text) {
  const std::string first = text.substr(0, text.find('\n'));
  if (first == "fused 1") return true;
  if (first == "fused 0") return false;
  return std::nullopt;
}

CudaEpilogueTuning::CudaEpilogueTuning(std::string dir, const std::string& identity)
    : dir_(std::move(dir)), identity_(codegen::hex64(codegen::text_hash(identity))) {}

std::string CudaEpilogueTuning::key(const std::string& problem) const {
  return "matmul-epilogue-" + codegen::hex64(codegen::text_hash(problem)) + "-" + identity_;
}

std::string CudaEpilogueTuning::path(const std::string& key) const {
  return dir_.empty() ? std::string() : dir_ + "/tune/cuda-" + key + ".txt";
}

std::optional<bool> CudaEpilogueTuning::find(const std::string& key) {
  std::lock_guard lock(mutex_);
  if (auto it = decided_.find(key); it != decided_.end()) return it->second;
  if (dir_.empty()) return std::nullopt;
  const std::optional<bool> d = parse_epilogue_decision(cache::read_file(path(key)));
  if (!d) return std::nullopt;  // absent, torn or foreign: measured again
  decided_[key] = *d;
  ++stats_.from_disk;
  return d;
}

void CudaEpilogueTuning::store(const std::string& key, const std::string& problem, bool fused) {
  std::lock_guard lock(mutex_);
  decided_[key] = fused;
  ++stats_.measured;
  if (dir_.empty()) return;
  std::error_code ec;
  std::filesystem::create_directories(dir_ + "/tune", ec);
  // A read-only or full directory keeps the decision in memory only.
  cache::write_file_atomically(path(key), format_epilogue_decision(fused, problem));
}

bool CudaEpilogueTuning::count(bool fused) {
  std::lock_guard lock(mutex_);
  ++(fused ? stats_.fused_runs : stats_.unfused_runs);
  return fused;
}

bool CudaEpilogueTuning::run(const std::string& key, const std::string& problem,
                             const std::function<bool()>& fused,
                             const std::function<void()>& unfused, const Timer& seconds,
                             bool may_measure) {
  if (const std::optional<bool> decided = find(key)) {
    if (*decided && fused()) return count(true);
    unfused();
    return count(false);
  }
  if (!may_measure) {  // a recording: what the plan runs without epilogues, decided later
    unfused();
    return count(false);
  }
  if (!fused()) {  // also the warm-up; a refusal is decided without timing
    store(key, problem, false);
    unfused();
    return count(false);
  }
  unfused();  // warm-up
  double best_fused = 0, best_unfused = 0;
  for (int rep = 0; rep < 2; ++rep) {
    const double f = seconds([&] { fused(); }), u = seconds(unfused);
    best_fused = rep == 0 ? f : std::min(best_fused, f);
    best_unfused = rep == 0 ? u : std::min(best_unfused, u);
  }
  const bool fuse = best_fused <= best_unfused;
  store(key, problem, fuse);
  if (fuse) fused();  // the last run above was the unfused one
  return count(fuse);
}

CudaEpilogueTuning::Stats CudaEpilogueTuning::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

}  // namespace tensord::cuda
