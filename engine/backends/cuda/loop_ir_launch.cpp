#include "engine/backends/cuda/loop_ir_launch.h"

#include <algorithm>
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

LoopUnit loop_unit(const codegen::LoopKernel& kernel) {
  const codegen::CudaEmitter emitter;
  const codegen::EmittedKernel emitted = emitter.emit(kernel);
  return LoopUnit{emitter.unit({&emitted, 1}), {emitted.name}};
}

LoopUnit fused_unit(std::span<const engine::FusedGroup> groups) {
  const codegen::CudaEmitter emitter;
  std::vector<codegen::EmittedKernel> kernels;
  LoopUnit unit;
  for (const engine::FusedGroup& g : groups) {
    codegen::EmittedKernel k = emitter.emit(g.kernel);
    unit.names.push_back(k.name);
    bool seen = false;
    for (const codegen::EmittedKernel& e : kernels) seen = seen || e.name == k.name;
    if (!seen) kernels.push_back(std::move(k));
  }
  std::sort(kernels.begin(), kernels.end(),
            [](const auto& a, const auto& b) { return a.name < b.name; });
  unit.source = emitter.unit(kernels);
  return unit;
}

cudaKernel_t loop_kernel(CudaContext& ctx, const codegen::LoopKernel& kernel) {
  if (!ctx.states.loop_ir) ctx.states.loop_ir = std::make_unique<LoopKernels>();
  auto& memo = static_cast<LoopKernels&>(*ctx.states.loop_ir).loaded;
  std::string key = key_of(kernel);
  if (auto it = memo.find(key); it != memo.end()) return it->second;
  const LoopUnit unit = loop_unit(kernel);
  const cudaKernel_t k = ctx.kernels.kernel(unit.source, unit.names.front());
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

RowSplit split_rows(std::span<const int64_t> shape, std::span<const int64_t> strides, int inner,
                    ir::Op op, ir::DType input, ir::DType result, int sm_count) {
  RowSplit split;
  const size_t rank = shape.size();
  if (inner < 1 || static_cast<size_t>(inner) > rank) return split;
  const bool lossless =
      op == ir::Op::max || op == ir::Op::min ||
      (op == ir::Op::sum &&
       ((input == result && (input == ir::DType::Float32 || input == ir::DType::Float64)) ||
        (result == ir::DType::Int64 && !ir::is_floating(input))));
  if (!lossless) return split;
  int64_t rows = 1;
  for (size_t d = 0; d + inner < rank; ++d) rows *= shape[d];
  // The reduced dimensions as one run with one step, size-1 dimensions ignored.
  int64_t length = 1, step = 0;
  for (size_t d = rank; d-- > rank - inner;) {
    if (shape[d] == 1) continue;
    if (step == 0) {
      step = strides[d];
    } else if (strides[d] != step * length) {
      return split;
    }
    length *= shape[d];
  }
  const int64_t sms = std::max(1, sm_count);
  if (rows >= sms || length < (int64_t{1} << 20) || step == 0) return split;
  constexpr int64_t kMinChunk = 4096;
  const int64_t target = std::min(4 * sms / rows + 1, length / kMinChunk);
  for (int64_t k = target; k >= 2; --k) {
    if (length % k == 0) {
      split.chunks = k;
      split.row_length = length;
      split.step = step;
      return split;
    }
  }
  return split;
}

}  // namespace tensord::cuda
