#include "tests/support/backend/compile_ahead.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <map>
#include <mutex>
#include <thread>
#include <tuple>

#include "engine/ir/error.h"
#include "tests/support/backend/forwarding_backend.h"

namespace tensord::test {
namespace {

// The real backend for everything a plan's unfused steps do; compile() keeps the groups and
// fails as a kernel that does not compile would, so that the engine plans the graph again
// unfused and runs that: the recording run's values are eager's, data-dependent shapes
// included.
class GroupRecorder final : public ForwardingBackend {
 public:
  explicit GroupRecorder(engine::Backend& real) : ForwardingBackend(real) {}

  bool can_fuse() const override { return true; }
  std::shared_ptr<const engine::CompiledKernels> compile(
      std::span<const engine::FusedGroup> groups) override {
    recorded_.insert(recorded_.end(), groups.begin(), groups.end());
    throw Error(ErrorCode::Internal, "recorded for compile_ahead, not compiled");
  }

  std::vector<engine::FusedGroup> take() { return std::move(recorded_); }

 private:
  std::vector<engine::FusedGroup> recorded_;
};

// Groups of different shapes often share their kernel (sizes are arguments): one of each.
// Two groups whose kernels compare equal may still differ in what the emitter makes of them
// (an epilogue); then the one dropped here compiles during the real run, as without this.
std::vector<engine::FusedGroup> distinct(std::vector<engine::FusedGroup> groups) {
  using Shape = std::tuple<size_t, size_t, size_t, int, bool>;
  std::map<Shape, std::vector<size_t>> seen;  // a cheap key, then a full comparison
  std::vector<engine::FusedGroup> out;
  for (engine::FusedGroup& g : groups) {
    const Shape key{g.kernel.inputs.size(), g.kernel.outputs.size(), g.kernel.body.size(),
                    g.kernel.rank(), g.epilogue.has_value()};
    std::vector<size_t>& same_shape = seen[key];
    const bool dup = std::any_of(same_shape.begin(), same_shape.end(),
                                 [&](size_t i) { return out[i].kernel == g.kernel; });
    if (dup) continue;
    same_shape.push_back(out.size());
    out.push_back(std::move(g));
  }
  return out;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

CompiledAhead compile_fused_ahead(engine::Backend& backend,
                                  const std::function<void(engine::Backend&)>& run_graphs,
                                  size_t batch, unsigned threads) {
  CompiledAhead result;
  if (!backend.can_fuse()) return result;
  auto t0 = std::chrono::steady_clock::now();
  GroupRecorder recorder(backend);
  run_graphs(recorder);  // the real run reports failures
  const std::vector<engine::FusedGroup> groups = distinct(recorder.take());
  result.record_s = seconds_since(t0);
  result.groups = groups.size();
  batch = std::max<size_t>(batch, 1);
  result.batches = (groups.size() + batch - 1) / batch;

  t0 = std::chrono::steady_clock::now();
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  std::atomic<size_t> next{0};
  std::mutex mutex;
  auto work = [&] {
    for (size_t b; (b = next++) < result.batches;) {
      const std::span<const engine::FusedGroup> part =
          std::span(groups).subspan(b * batch, std::min(batch, groups.size() - b * batch));
      try {
        (void)backend.compile(part);
      } catch (const std::exception& e) {
        std::lock_guard lock(mutex);
        if (result.failed_batches++ == 0) result.first_failure = e.what();
      }
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < std::min<size_t>(threads, result.batches); ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  result.compile_s = seconds_since(t0);
  return result;
}

std::string describe(const CompiledAhead& ahead) {
  char line[200];
  std::snprintf(line, sizeof line,
                "compiled %zu fused groups ahead in %zu batches (recording %.1f s, compiling %.1f "
                "s)",
                ahead.groups, ahead.batches, ahead.record_s, ahead.compile_s);
  std::string log = line;
  if (ahead.failed_batches > 0) {
    log += "; " + std::to_string(ahead.failed_batches) +
           " batches did not compile (their graphs compile alone): " +
           ahead.first_failure.substr(0, 500);
  }
  return log;
}

}  // namespace tensord::test
