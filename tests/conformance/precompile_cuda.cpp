// tensord_conformance_precompile: compiles, on a machine without a GPU, every CUDA kernel the
// conformance tables (main and complex) ask for on the cuda and cuda-fused backends, into a
// kernel cache directory that a GPU run then reads (TENSORD_CONFORMANCE_CACHE_DIR, or the
// daemon's --cache-dir). scripts/gpu-pack runs it.
//
// The tables run through the real Engine on a recording backend: the CPU backend computes the
// values, and each node the CUDA backend would give its loop-IR family is asked for the kernels
// that family would compile (cuda::loop_ir_kernels, the same code run_loop_ir uses), each fused
// plan for its unit (cuda::fused_unit, as CudaBackend::compile). The other families' sources are
// fixed texts (cuda::family_kernel_units). Units are then compiled by CudaKernelCache::precompile
// (the loop-IR ones eight to an NVRTC program, compile_together, each under its own key) under
// the identity a device run computes (arch, NVRTC version, options), so the keys match by
// construction. Fused groups are not computed here (their outputs are zeros): values only
// matter to later data-dependent shapes, so a few fused units after those may be missed; the
// GPU run compiles what it misses.
// The table's objects hold Catch2 test cases: the build links Catch2's implementation
// (tests/catch_session.h); this main runs none of them.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <map>
#include <optional>
#include <thread>

#include "engine/backends/cpu/cpu_backend.h"
#include "engine/backends/cuda/cuda_ops.h"
#include "engine/backends/cuda/loop_ir_launch.h"
#include "engine/backends/cuda/precompile.h"
#include "tests/conformance/case.h"
#include "tests/conformance/complex_runner.h"
#include "tests/conformance/runner.h"
#include "tests/unit/cuda/recording_backend.h"
#include "tools/precompile/options.h"

namespace tensord::conformance {
namespace {

using cuda::test::Recorded;
using cuda::test::RecordingBackend;

// The main table's rows, then the complex table's, on one recording backend.
void record(bool fuse, int sm_count, const std::vector<Case>& cases, Recorded& out) {
  RecordingBackend backend(fuse, sm_count, out);
  Runner runner(backend);
  out.row = 0;
  for (const Case& c : cases) {
    try {
      (void)runner.run(c);  // a failing row still recorded the kernels it reached
    } catch (const std::exception&) {
    }
    ++out.row;
  }
  (void)complex_table::run_complex_table(backend, "");
}

}  // namespace

// The table's objects name this list; nothing here runs the table's test cases.
std::vector<BackendUnderTest> backends_under_test() {
  return {};
}

}  // namespace tensord::conformance

int main(int argc, char** argv) {
  using namespace tensord;
  precompile::Options o;
  try {
    o = precompile::parse(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const std::invalid_argument& e) {
    std::cerr << "tensord_conformance_precompile: " << e.what() << "\n" << precompile::kUsage;
    return 2;
  }
  try {
    cuda::CudaKernelCacheOptions cache_options;
    cache_options.dir = o.cache_dir;
    cache_options.arch = o.arch;
    cuda::CudaKernelCache cache(cache_options);
    std::printf("identity: %s\n", cache.identity().c_str());
    if (o.identity) return 0;
    const auto t0 = std::chrono::steady_clock::now();
    const std::vector<conformance::Case> cases = conformance::all_cases();
    conformance::Recorded recorded;
    conformance::record(false, o.sm_count, cases, recorded);
    const size_t eager = recorded.units.size();
    conformance::record(true, o.sm_count, cases, recorded);
    const double record_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf(
        "recorded %zu loop-IR units (cuda) and %zu more (cuda-fused) over %zu rows in "
        "%.1f s\n",
        eager, recorded.units.size() - eager, cases.size(), record_s);
    // The fixed family sources first (every table family past elementwise needs them), then the
    // table's units from its last rows back: last session's deadline cut the table's end
    // (shape, indexing, sorting, linear algebra, FFT, NN), so that is where a budget goes first.
    std::vector<cuda::PrecompileUnit> order = cuda::family_kernel_units();
    const size_t family = order.size();
    std::vector<size_t> by_row(recorded.units.size());
    for (size_t i = 0; i < by_row.size(); ++i) by_row[i] = i;
    std::stable_sort(by_row.begin(), by_row.end(), [&](size_t a, size_t b) {
      return recorded.first_row[a] > recorded.first_row[b];
    });
    for (size_t i : by_row) order.push_back(recorded.units[i]);
    const int jobs = o.jobs > 0 ? o.jobs : static_cast<int>(std::thread::hardware_concurrency());
    const double budget = o.deadline_s > 0 ? std::max(1.0, o.deadline_s - record_s) : 0;
    const cuda::PrecompileResult r = cuda::precompile_units(cache, order, jobs, budget);
    for (const std::string& e : r.errors) std::fprintf(stderr, "failed: %.2000s\n", e.c_str());
    cuda::write_manifest(cache, o.cache_dir, r);
    std::printf(
        "precompiled %zu units (%zu family, %zu table) for sm_%d into %s/cuda: %zu compiled, "
        "%zu cached, %zu failed, %zu left (deadline); compiling took %.1f s on %d threads\n",
        order.size(), family, order.size() - family, o.arch, o.cache_dir.c_str(), r.compiled,
        r.cached, r.failed, r.left, r.seconds, jobs);
    return r.failed > 0 ? 1 : 0;
  } catch (const std::exception& e) {
    std::cerr << "tensord_conformance_precompile: " << e.what() << "\n";
    return 1;
  }
}
