// The conformance table's backend list for tensord_conformance_cuda_emulated: the CUDA backend's
// creation, movement and index families, its data-dependent ops (unique with the sort family's
// network), its integer matmul, and its loop-IR
// family for complex nodes, with their kernels run on the host (movement_emulation.cpp), every
// other op on the CPU backend. It checks those families against
// the table's float64 reference on a machine without a GPU.
#include <cstdlib>
#include <string>
#include <string_view>

#include "engine/backends/cpu/cpu_backend.h"
#include "engine/backends/cuda/cuda_ops.h"
#include "tests/conformance/runner.h"

namespace tensord::conformance {
namespace {

// The loop-IR family runs only nodes with a complex operand here: compiling each of the real
// table's thousands of kernels with the host compiler would take hours, and the real formulas
// are checked against the CPU by tensord_unit_cuda_formulas_host. To check some ops' real
// kernels too, name them in TENSORD_CONFORMANCE_EMULATE_OPS (comma-separated, with
// TENSORD_CONFORMANCE_FILTER to keep the run short).
bool involves_complex(std::span<const engine::TensorValue> in,
                      std::span<const engine::TensorValue> out) {
  for (const auto* side : {&in, &out}) {
    for (const engine::TensorValue& v : *side) {
      if (ir::is_complex(v.type.dtype)) return true;
    }
  }
  return false;
}

bool emulate_real(ir::Op op) {
  // ",a,b," and ",op,": appended, as GCC 12 warns falsely about operator+ chains.
  auto fenced = [](std::string_view s) {
    std::string f(",");
    f.append(s).append(",");
    return f;
  };
  static const char* named = std::getenv("TENSORD_CONFORMANCE_EMULATE_OPS");
  static const std::string ops = named ? fenced(named) : std::string();
  return !ops.empty() && ops.find(fenced(ir::name(op))) != std::string::npos;
}

class EmulatedCudaFamilies final : public engine::Backend {
 public:
  EmulatedCudaFamilies()
      : ctx_{0,
             90,
             1,
             nullptr,
             kernels_,
             states_,
             engine::Float32MatmulPrecision::Highest,
             [this](size_t bytes) { return cpu_.allocate(bytes); }} {}
  const engine::DeviceInfo& info() const override { return cpu_.info(); }
  std::shared_ptr<engine::Buffer> allocate(size_t bytes) override { return cpu_.allocate(bytes); }
  void run(const ir::Node& node, std::span<const engine::TensorValue> in,
           std::span<const engine::TensorValue> out) override {
    if ((involves_complex(in, out) || emulate_real(node.op)) &&
        cuda::run_loop_ir(ctx_, node, in, out)) {
      return;
    }
    if (cuda::run_creation(ctx_, node, in, out) || cuda::run_movement(ctx_, node, in, out) ||
        cuda::run_index(ctx_, node, in, out) || cuda::run_solver(ctx_, node, in, out) ||
        cuda::run_int_matmul(ctx_, node, in, out)) {
      return;
    }
    cpu_.run(node, in, out);
  }
  std::vector<engine::TensorValue> run_data_dependent(
      const ir::Node& node, std::span<const engine::TensorValue> in) override {
    return cuda::run_dynamic(ctx_, node, in);
  }
  void write(engine::Buffer& dst, size_t offset, const void* src, size_t n) override {
    cpu_.write(dst, offset, src, n);
  }
  void read(const engine::Buffer& src, size_t offset, void* dst, size_t n) override {
    cpu_.read(src, offset, dst, n);
  }
  void copy(engine::Buffer& dst, size_t dst_offset, const engine::Buffer& src, size_t src_offset,
            size_t n) override {
    cpu_.copy(dst, dst_offset, src, src_offset, n);
  }

 private:
  cpu::CpuBackend cpu_{2};
  cuda::CudaKernelCache kernels_{cuda::CudaKernelCacheOptions{}};
  cuda::FamilyStates states_;
  cuda::CudaContext ctx_;
};

}  // namespace

std::vector<BackendUnderTest> backends_under_test() {
  return {{"cuda-emulated", [](std::string&) -> std::unique_ptr<engine::Backend> {
             return std::make_unique<EmulatedCudaFamilies>();
           }}};
}

}  // namespace tensord::conformance
