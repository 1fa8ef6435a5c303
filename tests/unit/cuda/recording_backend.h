// A backend that records the CUDA kernels a run would compile, without a GPU: the CPU backend
// computes the values, each node the CUDA backend would give its loop-IR family is asked for
// the kernels that family would compile (cuda::loop_ir_kernels, the same code run_loop_ir
// uses), and each fused plan for its unit (cuda::fused_unit, as CudaBackend::compile). Fused
// groups are not computed (their outputs are zeros). Used by tensord_conformance_precompile
// (tests/conformance/precompile_cuda.cpp) and by the random graphs' NVRTC test
// (random_graphs_nvrtc_test.cpp).
#pragma once

#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/backends/cpu/cpu_backend.h"
#include "engine/backends/cuda/cuda_ops.h"
#include "engine/backends/cuda/loop_ir_launch.h"
#include "engine/backends/cuda/precompile.h"
#include "tests/support/backend/forwarding_backend.h"

namespace tensord::cuda::test {

// The units a run asked for, each with the first table row that needed it.
struct Recorded {
  std::vector<PrecompileUnit> units;
  std::vector<size_t> first_row;
  std::map<std::string, size_t, std::less<>> index;  // source -> position in units
  size_t row = 0;                                    // the row being run
  void add(const char* family, std::string source,
           std::optional<codegen::LoopKernel> kernel = std::nullopt) {
    if (index.count(source) > 0) return;
    index.emplace(source, units.size());
    units.push_back({family, std::move(source), std::move(kernel)});
    first_row.push_back(row);
  }
};

class NoKernels final : public engine::CompiledKernels {};

class RecordingBackend final : public tensord::test::ForwardingBackend {
 public:
  RecordingBackend(bool fuse, int sm_count, Recorded& out)
      : ForwardingBackend(std::make_unique<cpu::CpuBackend>(1)),
        fuse_(fuse),
        sm_count_(sm_count),
        out_(out) {}
  void run(const ir::Node& node, std::span<const engine::TensorValue> in,
           std::span<const engine::TensorValue> out) override {
    for (const codegen::LoopKernel& k : loop_ir_kernels(node, in, out, sm_count_)) {
      out_.add("loop-ir", loop_unit(k).source, k);  // batched: precompile_units
    }
    ForwardingBackend::run(node, in, out);
  }
  bool can_fuse() const override { return fuse_; }
  std::shared_ptr<const engine::CompiledKernels> compile(
      std::span<const engine::FusedGroup> groups) override {
    if (!groups.empty()) out_.add("fused", fused_unit(groups).source);
    return std::make_shared<NoKernels>();
  }
  void run_fused(const engine::CompiledKernels&, uint32_t, const engine::FusedGroup&,
                 std::span<const engine::TensorValue>,
                 std::span<const engine::TensorValue> outputs) override {
    for (const engine::TensorValue& v : outputs) std::memset(v.raw(), 0, v.nbytes());
  }

 private:
  bool fuse_;
  int sm_count_;
  Recorded& out_;
};

}  // namespace tensord::cuda::test
