#include "tests/conformance/compile_ahead.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <thread>
#include <tuple>

#include "engine/ir/error.h"
#include "tests/conformance/runner.h"

namespace tensord::conformance {
namespace {

// The real backend for everything a plan's unfused steps do; compile() keeps the groups and
// fails as a kernel that does not compile would, so that the engine plans the graph again
// unfused and runs that: the recording run's values are eager's, data-dependent shapes
// included.
class GroupRecorder final : public engine::Backend {
 public:
  explicit GroupRecorder(engine::Backend& real) : real_(real) {}

  const engine::DeviceInfo& info() const override { return real_.info(); }
  std::shared_ptr<engine::Buffer> allocate(size_t bytes) override { return real_.allocate(bytes); }
  void run(const ir::Node& node, std::span<const engine::TensorValue> in,
           std::span<const engine::TensorValue> out) override {
    real_.run(node, in, out);
  }
  std::vector<engine::TensorValue> run_data_dependent(
      const ir::Node& node, std::span<const engine::TensorValue> in) override {
    return real_.run_data_dependent(node, in);
  }
  void write(engine::Buffer& dst, size_t offset, const void* src, size_t n) override {
    real_.write(dst, offset, src, n);
  }
  void read(const engine::Buffer& src, size_t offset, void* dst, size_t n) override {
    real_.read(src, offset, dst, n);
  }
  void copy(engine::Buffer& dst, size_t dst_offset, const engine::Buffer& src, size_t src_offset,
            size_t n) override {
    real_.copy(dst, dst_offset, src, src_offset, n);
  }
  bool can_fuse() const override { return true; }
  std::shared_ptr<const engine::CompiledKernels> compile(
      std::span<const engine::FusedGroup> groups) override {
    recorded_.insert(recorded_.end(), groups.begin(), groups.end());
    throw Error(ErrorCode::Internal, "recorded for compile_ahead, not compiled");
  }

  std::vector<engine::FusedGroup> take() { return std::move(recorded_); }

 private:
  engine::Backend& real_;
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

CompiledAhead compile_ahead(engine::Backend& backend, const std::vector<Case>& cases, size_t batch,
                            unsigned threads) {
  CompiledAhead result;
  if (!backend.can_fuse() || cases.empty()) return result;
  auto t0 = std::chrono::steady_clock::now();
  GroupRecorder recorder(backend);
  {
    engine::EngineOptions options;
    options.unfused_on_compile_error = true;
    Runner runner(recorder, std::move(options));
    for (const Case& c : cases) (void)runner.run(c);  // the real run reports failures
  }
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

}  // namespace tensord::conformance
