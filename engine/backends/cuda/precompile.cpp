#include "engine/backends/cuda/precompile.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <string_view>
#include <thread>
#include <unordered_set>

#include "engine/backends/cuda/dnn_kernels.h"
#include "engine/backends/cuda/fft_strided_copy.h"
#include "engine/backends/cuda/int_matmul.h"
#include "engine/backends/cuda/movement_sources.h"
#include "engine/backends/cuda/solver_kernels.h"
#include "engine/backends/cuda/sort_sources.h"
#include "engine/cache/cache_file.h"
#include "engine/codegen/emit_cuda.h"
#include "engine/ir/error.h"

namespace tensord::cuda {

std::vector<PrecompileUnit> family_kernel_units() {
  std::vector<PrecompileUnit> units;
  const std::pair<const char*, std::vector<KernelSource>> movement[] = {
      {"creation", creation_kernel_sources()},
      {"movement", movement_kernel_sources()},
      {"index", index_kernel_sources()},
      {"dynamic", dynamic_kernel_sources()}};
  for (const auto& [family, list] : movement) {
    for (const KernelSource& s : list) units.push_back({family, *s.text});
  }
  // The reduce and scan families have a source for every dtype up to complex128; sorts stop at
  // float64 (sort_sources.h).
  for (ir::DType t : sort_family_dtypes()) {
    units.push_back({"reduce", reduce_source(t)});
    units.push_back({"scan", scan_source(t)});
    if (ir::is_complex(t)) continue;
    units.push_back({"sort", sort_source(t)});
  }
  units.push_back({"sort", sort_network_source()});
  for (ir::DType t :
       {ir::DType::Float32, ir::DType::Float64, ir::DType::Float16, ir::DType::BFloat16}) {
    units.push_back({"dnn", dnn::kernel_source(t)});
  }
  units.push_back({"dnn", dnn::copy_source()});
  units.push_back({"fft", strided_copy_source()});
  for (const KernelSource& s : int_matmul_kernel_sources()) units.push_back({"matmul", *s.text});
  units.push_back({"solver", solver_kernels_source()});
  return units;
}

PrecompileResult precompile_units(CudaKernelCache& cache, std::span<const PrecompileUnit> units,
                                  int jobs, double deadline_s, size_t batch) {
  if (cache.options().dir.empty()) {
    throw Error(ErrorCode::Internal, "precompiling needs a kernel cache with a directory");
  }
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  // Distinct texts only, first occurrence first: two threads never compile the same unit.
  std::vector<const PrecompileUnit*> todo;
  std::unordered_set<std::string_view> seen;
  for (const PrecompileUnit& u : units) {
    if (seen.insert(u.source).second) todo.push_back(&u);
  }
  // Jobs: a unit alone, or a run of up to `batch` units with kernels (one program).
  std::vector<std::pair<size_t, size_t>> job_ranges;  // [begin, end) of todo
  for (size_t i = 0; i < todo.size(); ++i) {
    const bool joins =
        !job_ranges.empty() && todo[i]->kernel && todo[i - 1]->kernel &&
        job_ranges.back().second - job_ranges.back().first < std::max<size_t>(1, batch);
    if (joins) {
      ++job_ranges.back().second;
    } else {
      job_ranges.emplace_back(i, i + 1);
    }
  }
  PrecompileResult result;
  std::vector<char> present(todo.size());  // not vector<bool>: threads set their own slots
  std::mutex mutex;
  auto fail = [&](size_t i, const std::exception& e) {
    std::lock_guard lock(mutex);
    ++result.failed;
    if (result.errors.size() < 5) result.errors.push_back(todo[i]->family + ": " + e.what());
  };
  auto alone = [&](size_t i) {
    try {
      const bool compiled = cache.precompile(todo[i]->source);
      std::lock_guard lock(mutex);
      ++(compiled ? result.compiled : result.cached);
      present[i] = true;
    } catch (const std::exception& e) {
      fail(i, e);
    }
  };
  auto together = [&](size_t begin, size_t end) {
    const codegen::CudaEmitter emitter;
    std::vector<size_t> missing;
    std::vector<codegen::EmittedKernel> kernels;
    std::vector<std::string> members;
    size_t held = 0;
    for (size_t i = begin; i < end; ++i) {
      if (cache.holds(todo[i]->source)) {
        ++held;
        present[i] = true;  // this thread's own slots: no other job touches them
        continue;
      }
      missing.push_back(i);
      for (codegen::EmittedKernel& k : emitter.entry_points(*todo[i]->kernel)) {
        kernels.push_back(std::move(k));
      }
      members.push_back(todo[i]->source);
    }
    {
      std::lock_guard lock(mutex);
      result.cached += held;
    }
    if (missing.empty()) return;
    try {
      cache.compile_together(emitter.unit(kernels), members);
      std::lock_guard lock(mutex);
      result.compiled += missing.size();
      for (size_t i : missing) present[i] = true;
    } catch (const std::exception&) {
      for (size_t i : missing) alone(i);  // the error then names its unit
    }
  };
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (;;) {
      if (deadline_s > 0 && elapsed() > deadline_s) return;
      const size_t j = next++;
      if (j >= job_ranges.size()) return;
      const auto [begin, end] = job_ranges[j];
      if (end - begin == 1 && !todo[begin]->kernel) {
        alone(begin);
      } else {
        together(begin, end);
      }
    }
  };
  std::vector<std::thread> threads;
  for (int j = 1; j < jobs; ++j) threads.emplace_back(work);
  work();
  for (std::thread& t : threads) t.join();
  const size_t reached = std::min(next.load(), job_ranges.size());
  result.left =
      todo.size() - (reached == job_ranges.size() ? todo.size() : job_ranges[reached].first);
  for (size_t i = 0; i < todo.size(); ++i) {
    if (present[i]) result.files.push_back(cache.file_of(todo[i]->source));
  }
  result.seconds = elapsed();
  return result;
}

void write_manifest(const CudaKernelCache& cache, const std::string& cache_dir,
                    const PrecompileResult& result) {
  std::string text = cache.identity() + "\n";
  for (const std::string& f : result.files) {
    text += f.substr(f.rfind('/', f.rfind('/') - 1) + 1) + "\n";  // "cuda/<key>.cubin"
  }
  if (!cache::write_file_atomically(cache_dir + "/precompiled.txt", text)) {
    throw Error(ErrorCode::Internal, "cannot write " + cache_dir + "/precompiled.txt");
  }
}

}  // namespace tensord::cuda
