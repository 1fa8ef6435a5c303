#include "engine/backends/cuda/loop_ir_batch.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <unordered_set>

#include "engine/backends/cuda/cuda_ops.h"
#include "engine/codegen/emit_cuda.h"
#include "engine/ir/error.h"

namespace tensord::cuda {

std::vector<codegen::LoopKernel> plan_loop_kernels(const engine::Plan& plan, int sm_count) {
  // The executor's arguments (executor.cpp, bind), without memory: the family reads types,
  // strides and the conj bit only.
  const auto nothing = std::make_shared<engine::Buffer>(nullptr, 0);
  auto value = [&](engine::ValueId v) {
    const engine::PlanValue& pv = plan.values[v];
    return engine::TensorValue{nothing, pv.type, pv.layout.strides, 0, pv.layout.conj};
  };
  std::vector<codegen::LoopKernel> kernels;
  std::vector<engine::TensorValue> in, out;
  for (const engine::Step& step : plan.steps) {
    if (step.kind != engine::StepKind::Kernel) continue;
    in.clear();
    out.clear();
    for (engine::ValueId v : plan[step.inputs]) in.push_back(value(v));
    for (engine::ValueId v : plan[step.outputs]) out.push_back(value(v));
    try {
      for (codegen::LoopKernel& k : loop_ir_kernels(plan.nodes[step.node], in, out, sm_count)) {
        kernels.push_back(std::move(k));
      }
    } catch (const std::exception&) {
      // Not this function's to report: the step's run raises it, naming the node.
    }
  }
  return kernels;
}

std::vector<size_t> batch_sizes(size_t n, const BatchOptions& o) {
  if (o.threads < 0 || o.min_batch == 0 || o.min_batch > o.max_batch) {
    throw Error(ErrorCode::Internal, "batch options out of range: threads " +
                                         std::to_string(o.threads) + ", min_batch " +
                                         std::to_string(o.min_batch) + ", max_batch " +
                                         std::to_string(o.max_batch));
  }
  if (n == 0) return {};
  const size_t threads = o.threads > 0 ? static_cast<size_t>(o.threads)
                                       : std::max<size_t>(1, std::thread::hardware_concurrency());
  // Enough programs that none is longer than max_batch; more, up to one per thread, while each
  // keeps min_batch kernels (fewer, longer programs cost less CPU; more finish sooner).
  const size_t fewest = (n + o.max_batch - 1) / o.max_batch;
  const size_t programs = std::max(fewest, std::min(threads, std::max<size_t>(1, n / o.min_batch)));
  std::vector<size_t> sizes(programs, n / programs);
  for (size_t i = 0; i < n % programs; ++i) ++sizes[i];
  return sizes;
}

BatchReport compile_loop_kernels(CudaKernelCache& cache,
                                 std::span<const codegen::LoopKernel> kernels,
                                 const BatchOptions& options, std::span<const std::string> extra) {
  const codegen::CudaEmitter emitter;
  BatchReport report;
  // Each distinct kernel once; its own unit (loop_unit's text) is the key it is loaded by.
  std::vector<std::vector<codegen::EmittedKernel>> todo;  // each kernel's entry points
  std::vector<std::string> units;
  std::unordered_set<std::string> names;
  for (const codegen::LoopKernel& k : kernels) {
    std::vector<codegen::EmittedKernel> entries = emitter.entry_points(k);
    if (!names.insert(entries[0].name).second) continue;
    ++report.kernels;
    std::string unit = emitter.unit(entries);
    if (cache.holds(unit)) {
      ++report.held;
      continue;
    }
    todo.push_back(std::move(entries));
    units.push_back(std::move(unit));
  }
  struct Job {
    std::string combined;
    std::vector<std::string> members;
  };
  std::vector<Job> jobs;
  size_t at = 0;
  for (size_t size : batch_sizes(todo.size(), options)) {
    Job job;
    std::vector<codegen::EmittedKernel> together;
    for (size_t i = at; i < at + size; ++i)
      together.insert(together.end(), todo[i].begin(), todo[i].end());
    job.combined = emitter.unit(together);
    job.members.assign(units.begin() + static_cast<ptrdiff_t>(at),
                       units.begin() + static_cast<ptrdiff_t>(at + size));
    jobs.push_back(std::move(job));
    at += size;
  }
  const size_t loop_jobs = jobs.size();
  for (const std::string& source : extra) {
    if (!cache.holds(source)) jobs.push_back(Job{source, {source}});
  }
  if (jobs.empty()) return report;

  std::mutex mutex;
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next++) < jobs.size();) {
      try {
        cache.compile_together(jobs[i].combined, jobs[i].members);
        std::lock_guard lock(mutex);
        ++report.programs;
        if (i < loop_jobs) report.compiled += jobs[i].members.size();
      } catch (const std::exception& e) {
        std::lock_guard lock(mutex);
        if (i < loop_jobs) report.failed += jobs[i].members.size();
        if (report.errors.size() < 3) report.errors.push_back(e.what());
      }
    }
  };
  const int hardware = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const size_t threads =
      std::min(jobs.size(), static_cast<size_t>(options.threads > 0 ? options.threads : hardware));
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  return report;
}

}  // namespace tensord::cuda
