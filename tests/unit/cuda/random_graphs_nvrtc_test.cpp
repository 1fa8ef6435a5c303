// The CUDA kernels of random valid graphs compile with NVRTC, without a GPU: the graphs
// (tests/unit/ir/random_graphs.h) run through the real Engine on a recording backend
// (recording_backend.h), eagerly (the loop-IR family's kernels, one per node) and fused (one unit
// per fused plan), and every recorded unit goes through the kernel cache's NVRTC compile under
// the options a device run uses. The CPU's generated C++ meets the same graphs in
// tests/unit/exec/test_run_random.cpp, where three fused kernels once failed to compile.
#include <catch2/catch.hpp>

#include <random>
#include <string>
#include <vector>

#include "engine/cache/kernel_cache.h"
#include "engine/exec/engine.h"
#include "engine/ir/passes.h"
#include "tests/unit/cuda/recording_backend.h"
#include "tests/unit/ir/random_graphs.h"

namespace tensord::cuda::test {
namespace {

using ir::DType;
using ir::Graph;
using ir::TensorType;
using ir::ValueRef;

// Records the units of the valid graphs among the first `trials` of `seed`.
size_t record(uint64_t seed, int trials, bool fuse, int max_extent, Recorded& out) {
  RecordingBackend backend(fuse, 132, out);
  engine::Engine engine(backend);
  ir::test::RandomGraphs random(seed);
  random.max_extent = max_extent;
  std::mt19937 bytes(static_cast<uint32_t>(seed));
  size_t ran = 0;
  for (int trial = 0; trial < trials; ++trial) {
    const ir::test::RandomGraphs::Drawn drawn = random.draw();
    if (!ir::test::RandomGraphs::accepted(drawn)) continue;
    const auto& [types, g] = drawn;
    std::vector<engine::TensorValue> inputs;
    for (const TensorType& t : types) {
      inputs.push_back(engine::TensorValue::contiguous(backend.allocate(t.nbytes()), t));
      auto* p = static_cast<unsigned char*>(inputs.back().raw());
      const unsigned span = t.dtype == DType::Bool ? 2 : 7;
      for (size_t i = 0; i < t.nbytes(); ++i) p[i] = static_cast<unsigned char>(bytes() % span);
    }
    const std::vector<ValueRef> outputs{ValueRef{static_cast<uint32_t>(g.nodes.size() - 1), 0}};
    try {
      (void)engine.run(g, inputs, outputs,
                       fuse ? engine::CompileMode::Default : engine::CompileMode::Eager);
    } catch (const Error&) {
      // The data's fault (a singular matrix): the kernels it reached are recorded.
    }
    ++ran;
  }
  return ran;
}

TEST_CASE("random graphs' CUDA kernels compile with NVRTC", "[random][nvrtc]") {
  Recorded recorded;
  size_t ran = 0;
  for (bool fuse : {false, true}) {
    ran += record(1, 20000, fuse, 3, recorded);
    ran += record(2, 20000, fuse, 24, recorded);
  }
  CudaKernelCacheOptions options;
  options.dir = cache::default_cache_dir() + "/random-graphs";
  options.arch = 90;
  CudaKernelCache kernels(options);
  const PrecompileResult r = precompile_units(kernels, recorded.units, 2);
  for (const std::string& e : r.errors) UNSCOPED_INFO(e.substr(0, 3000));
  CHECK(r.failed == 0);
  CHECK(r.compiled + r.cached == recorded.units.size());
  CHECK(recorded.units.size() > 500);
  WARN(ran << " random graphs, " << recorded.units.size() << " CUDA units: " << r.compiled
           << " compiled, " << r.cached << " cached, in " << r.seconds << " s");
}

}  // namespace
}  // namespace tensord::cuda::test
