#include "engine/backends/cuda/loop_ir_launch.h"

#include <cstring>
#include <string>
#include <unordered_map>

#include "engine/codegen/emit_cuda.h"

namespace tensord::cuda {
namespace {

// A LoopKernel as bytes: the memo's key (cheaper than emitting the source to hash it).
std::string key_of(const codegen::LoopKernel& k) {
  std::string s;
  auto put = [&](uint64_t v) { s.append(reinterpret_cast<const char*>(&v), sizeof v); };
  put(k.outer_rank);
  put(k.inner_rank);
  for (const auto* ops : {&k.inputs, &k.outputs}) {
    put(ops->size());
    for (const codegen::Operand& o : *ops) {
      put(static_cast<uint64_t>(o.dtype) | static_cast<uint64_t>(o.level) << 8 |
          static_cast<uint64_t>(o.access) << 16);
    }
  }
  for (const codegen::Instr& in : k.body) {
    put(static_cast<uint64_t>(in.kind) | static_cast<uint64_t>(in.op) << 8 |
        static_cast<uint64_t>(in.dtype) << 24 | static_cast<uint64_t>(in.level) << 32 |
        static_cast<uint64_t>(in.arg) << 40);
    put(in.args.size());
    for (uint32_t a : in.args) put(a);
    uint64_t bits = 0;
    std::memcpy(&bits, &in.value, sizeof bits);
    put(bits);
  }
  for (uint32_t r : k.results) put(r);
  return s;
}

class LoopKernels final : public FamilyState {
 public:
  std::unordered_map<std::string, cudaKernel_t> loaded;
};

}  // namespace

cudaKernel_t loop_kernel(CudaContext& ctx, const codegen::LoopKernel& kernel) {
  if (!ctx.states.loop_ir) ctx.states.loop_ir = std::make_unique<LoopKernels>();
  auto& memo = static_cast<LoopKernels&>(*ctx.states.loop_ir).loaded;
  std::string key = key_of(kernel);
  if (auto it = memo.find(key); it != memo.end()) return it->second;
  const codegen::CudaEmitter emitter;
  const codegen::EmittedKernel emitted = emitter.emit(kernel);
  const cudaKernel_t k = ctx.kernels.kernel(emitter.unit({&emitted, 1}), emitted.name);
  memo.emplace(std::move(key), k);
  return k;
}

void launch_loop_kernel(CudaContext& ctx, cudaKernel_t kernel, const engine::FusedGroup& fused,
                        std::span<void* const> ptrs, std::string_view what) {
  const codegen::CudaLaunchConfig config =
      codegen::cuda_launch_config(fused.kernel, fused.launch, ctx.sm_count);
  if (config.grid == 0) return;
  std::vector<uint64_t> params = codegen::cuda_params(fused.kernel, fused.launch, ptrs);
  void* args[] = {params.data()};
  const std::string name = "launching the CUDA kernel of " + std::string(what);
  launch(kernel, dim3(config.grid), dim3(config.block), args, config.shared_bytes, ctx.stream,
         name.c_str());
}

}  // namespace tensord::cuda
