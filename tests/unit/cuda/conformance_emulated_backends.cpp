// The conformance table's backend list for tensord_conformance_cuda_emulated: the CUDA backend's
// creation, movement and index families, its data-dependent ops (unique with the sort family's
// network), its integer matmul, and its loop-IR family (complex nodes, or every node it takes),
// with their kernels run on the host (movement_emulation.cpp), every other op on the CPU
// backend. It checks those families against the table's float64 reference on a machine
// without a GPU.
#include <chrono>
#include <cstdlib>
#include <string>
#include <string_view>

#include "engine/backends/cpu/cpu_backend.h"
#include "engine/backends/cuda/cuda_ops.h"
#include "engine/backends/cuda/loop_ir_batch.h"
#include "tests/conformance/runner.h"
#include "tests/support/backend/forwarding_backend.h"

namespace tensord::conformance {
namespace {

// The loop-IR family runs only nodes with a complex operand here, unless
// TENSORD_CONFORMANCE_EMULATE_OPS sends real nodes through it too: ops by name
// (comma-separated), or `all`, as ctest runs it (the main table then records 6,504 kernels in
// ~65 s, compiles them in batches in ~110 s on 2 cores and runs in ~40 s, every kernel's real
// blocks as fibers).
bool involves_complex(std::span<const engine::TensorValue> in,
                      std::span<const engine::TensorValue> out) {
  for (const auto* side : {&in, &out}) {
    for (const engine::TensorValue& v : *side) {
      if (ir::is_complex(v.type.dtype)) return true;
    }
  }
  return false;
}

const std::string& real_ops_emulated() {
  // ",a,b," and ",op,": appended, as GCC 12 warns falsely about operator+ chains.
  static const std::string ops = [] {
    const char* named = std::getenv("TENSORD_CONFORMANCE_EMULATE_OPS");
    return named && *named ? std::string(",").append(named).append(",") : std::string();
  }();
  return ops;
}

bool emulate_real(ir::Op op) {
  const std::string& ops = real_ops_emulated();
  if (ops == ",all,") return true;
  return !ops.empty() &&
         ops.find(std::string(",").append(ir::name(op)).append(",")) != std::string::npos;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

class EmulatedCudaFamilies final : public test::ForwardingBackend {
 public:
  EmulatedCudaFamilies()
      : ForwardingBackend(std::make_unique<cpu::CpuBackend>(2)),
        ctx_{0,
             90,
             1,
             nullptr,
             kernels_,
             states_,
             engine::Float32MatmulPrecision::Highest,
             [this](size_t bytes) { return allocate(bytes); }} {}
  void run(const ir::Node& node, std::span<const engine::TensorValue> in,
           std::span<const engine::TensorValue> out) override {
    if (involves_complex(in, out) || emulate_real(node.op)) {
      if (recording_) {
        record_loop_ir(node, in, out);  // and the families or the CPU compute it
      } else if (cuda::run_loop_ir(ctx_, node, in, out)) {
        return;
      }
    }
    if (cuda::run_creation(ctx_, node, in, out) || cuda::run_movement(ctx_, node, in, out) ||
        cuda::run_index(ctx_, node, in, out) || cuda::run_solver(ctx_, node, in, out) ||
        cuda::run_int_matmul(ctx_, node, in, out)) {
      return;
    }
    ForwardingBackend::run(node, in, out);  // the CPU's
  }
  std::vector<engine::TensorValue> run_data_dependent(
      const ir::Node& node, std::span<const engine::TensorValue> in) override {
    return cuda::run_dynamic(ctx_, node, in);
  }

  // The loop-IR kernels a table's cases will load, compiled before they run: a recording run
  // gathers them, then they compile a few dozen to a unit on every core (compile_loop_kernels,
  // as a device's CudaBackend::prepare compiles a plan's), where one by one the host compiler's
  // fixed cost would be paid ~350 times. The main table has no complex node, hence nothing to
  // compile unless TENSORD_CONFORMANCE_EMULATE_OPS names ops.
  std::string compile_loop_ir_ahead(std::string_view table, const conformance::RunCases& cases) {
    if (table == "main" && real_ops_emulated().empty()) {
      return "no loop-IR kernels to compile ahead";
    }
    auto t0 = std::chrono::steady_clock::now();
    recording_ = true;
    cases(*this);
    recording_ = false;
    const double record_s = seconds_since(t0);
    t0 = std::chrono::steady_clock::now();
    cuda::BatchOptions options;
    options.max_batch = 48;
    const cuda::BatchReport r = cuda::compile_loop_kernels(kernels_, recorded_, options);
    recorded_.clear();
    std::string log = "compiled " + std::to_string(r.compiled) + " of " +
                      std::to_string(r.kernels) + " loop-IR kernels ahead in " +
                      std::to_string(r.programs) + " units (recording " + std::to_string(record_s) +
                      " s, compiling " + std::to_string(seconds_since(t0)) + " s)";
    if (r.failed > 0) {
      log += "; " + std::to_string(r.failed) +
             " did not compile (they compile alone when they run): " + r.errors.front();
    }
    return log;
  }

 private:
  void record_loop_ir(const ir::Node& node, std::span<const engine::TensorValue> in,
                      std::span<const engine::TensorValue> out) {
    try {
      for (codegen::LoopKernel& k : cuda::loop_ir_kernels(node, in, out, ctx_.sm_count)) {
        recorded_.push_back(std::move(k));
      }
    } catch (const std::exception&) {
      // Not the recording's to report: the real run raises it, naming the case.
    }
  }

  bool recording_ = false;
  std::vector<codegen::LoopKernel> recorded_;
  cuda::CudaKernelCache kernels_{cuda::CudaKernelCacheOptions{}};
  cuda::FamilyStates states_;
  cuda::CudaContext ctx_;
};

}  // namespace

std::vector<BackendUnderTest> backends_under_test() {
  return {{"cuda-emulated",
           [](std::string&) -> std::unique_ptr<engine::Backend> {
             return std::make_unique<EmulatedCudaFamilies>();
           },
           [](engine::Backend& backend, std::string_view table, const RunCases& cases) {
             return static_cast<EmulatedCudaFamilies&>(backend).compile_loop_ir_ahead(table, cases);
           }}};
}

}  // namespace tensord::conformance
