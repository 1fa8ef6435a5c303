// The CUDA kernels of fft_c2c, fft_r2c, fft_c2r (docs/ops.md "FFT") through cuFFT. The node is
// cut into stages (fft_plan.h); each stage's input is laid out by the strided copy kernel
// (which also casts to the compute dtype and pads or truncates to the transform lengths), then
// one batched cuFFT plan runs over it: c2c in place, r2c/c2r out of place. The norm's scale is
// applied once, by the copy into the output (or in place when the last stage wrote the output
// directly).
//
// Plans are cached per (kind, precision, lengths, batch) in FftState. Workspaces: plans are made
// with cufftSetAutoAllocation(false) and get their work area from ctx.scratch per run, so cuFFT
// holds no device memory of its own beyond its twiddle tables.
#include <cufft.h>

#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "engine/backends/cuda/cuda_check.h"
#include "engine/backends/cuda/cuda_ops.h"
#include "engine/backends/cuda/fft_plan.h"
#include "engine/backends/cuda/fft_strided_copy.h"
#include "engine/ir/error.h"

namespace tensord::cuda {
namespace {

using ir::DType;
using ir::Op;

// Enough distinct (lengths, batch) pairs for a training loop; past it the cache starts over.
constexpr size_t kMaxPlans = 64;

const char* cufft_result_name(cufftResult r) {
  switch (r) {
    case CUFFT_INVALID_PLAN:
      return "CUFFT_INVALID_PLAN";
    case CUFFT_ALLOC_FAILED:
      return "CUFFT_ALLOC_FAILED";
    case CUFFT_INVALID_VALUE:
      return "CUFFT_INVALID_VALUE";
    case CUFFT_INTERNAL_ERROR:
      return "CUFFT_INTERNAL_ERROR";
    case CUFFT_EXEC_FAILED:
      return "CUFFT_EXEC_FAILED";
    case CUFFT_SETUP_FAILED:
      return "CUFFT_SETUP_FAILED";
    case CUFFT_INVALID_SIZE:
      return "CUFFT_INVALID_SIZE";
    case CUFFT_NOT_SUPPORTED:
      return "CUFFT_NOT_SUPPORTED";
    default:
      return "cufftResult";
  }
}

void check_cufft(cufftResult r, const std::string& what) {
  if (r == CUFFT_SUCCESS) return;
  const ErrorCode code = r == CUFFT_ALLOC_FAILED    ? ErrorCode::OutOfMemory
                         : r == CUFFT_NOT_SUPPORTED ? ErrorCode::Unsupported
                                                    : ErrorCode::Internal;
  throw Error(code, what + " failed: " + cufft_result_name(r) + " (" +
                        std::to_string(static_cast<int>(r)) + ")");
}

struct CachedPlan {
  cufftHandle handle = 0;
  size_t work_bytes = 0;
};

class FftState final : public FamilyState {
 public:
  ~FftState() override { clear(); }

  // The plan of `stage`, made on first use. Making a plan allocates device tables, so a full
  // cache is emptied only after the device has finished every transform that may still use
  // them: any session's stream may have queued one.
  CachedPlan& plan(const FftStage& stage, bool dbl) {
    const std::string key = fft_plan_key(stage, dbl);
    auto it = plans_.find(key);
    if (it != plans_.end()) return it->second;
    if (plans_.size() >= kMaxPlans) {
      check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (cuFFT plan cache)");
      clear();
    }
    CachedPlan p;
    check_cufft(cufftCreate(&p.handle), "cufftCreate");
    try {
      check_cufft(cufftSetAutoAllocation(p.handle, 0), "cufftSetAutoAllocation");
      std::vector<long long> n(stage.lengths.begin(), stage.lengths.end());
      const cufftType type = stage.kind == FftKind::C2C   ? (dbl ? CUFFT_Z2Z : CUFFT_C2C)
                             : stage.kind == FftKind::R2C ? (dbl ? CUFFT_D2Z : CUFFT_R2C)
                                                          : (dbl ? CUFFT_Z2D : CUFFT_C2R);
      // Null embeds: the basic layout, contiguous transforms one after another.
      check_cufft(cufftMakePlanMany64(p.handle, static_cast<int>(n.size()), n.data(), nullptr, 1, 0,
                                      nullptr, 1, 0, type, stage.batch, &p.work_bytes),
                  "cufftMakePlanMany64 (" + key + ")");
    } catch (...) {
      cufftDestroy(p.handle);
      throw;
    }
    return plans_.emplace(key, p).first->second;
  }

 private:
  void clear() {
    for (auto& [key, p] : plans_) cufftDestroy(p.handle);
    plans_.clear();
  }

  std::unordered_map<std::string, CachedPlan> plans_;
};

FftState& fft_state(CudaContext& ctx) {
  if (!ctx.states.fft) ctx.states.fft = std::make_unique<FftState>();
  return static_cast<FftState&>(*ctx.states.fft);
}

std::vector<int64_t> strides_of(const engine::TensorValue& v) {
  return v.strides.empty() ? ir::contiguous_strides(v.type.shape) : v.strides;
}

void execute(CudaContext& ctx, const FftStage& stage, bool dbl, void* in, void* out) {
  CachedPlan& plan = fft_state(ctx).plan(stage, dbl);
  check_cufft(cufftSetStream(plan.handle, ctx.stream), "cufftSetStream");
  std::shared_ptr<engine::Buffer> work;
  if (plan.work_bytes > 0) {
    work = ctx.scratch(plan.work_bytes);
    check_cufft(cufftSetWorkArea(plan.handle, work->data()), "cufftSetWorkArea");
  }
  const int direction = stage.inverse ? CUFFT_INVERSE : CUFFT_FORWARD;
  switch (stage.kind) {
    case FftKind::C2C:
      if (dbl) {
        check_cufft(cufftExecZ2Z(plan.handle, static_cast<cufftDoubleComplex*>(in),
                                 static_cast<cufftDoubleComplex*>(out), direction),
                    "cufftExecZ2Z");
      } else {
        check_cufft(cufftExecC2C(plan.handle, static_cast<cufftComplex*>(in),
                                 static_cast<cufftComplex*>(out), direction),
                    "cufftExecC2C");
      }
      return;
    case FftKind::R2C:
      if (dbl) {
        check_cufft(cufftExecD2Z(plan.handle, static_cast<cufftDoubleReal*>(in),
                                 static_cast<cufftDoubleComplex*>(out)),
                    "cufftExecD2Z");
      } else {
        check_cufft(
            cufftExecR2C(plan.handle, static_cast<cufftReal*>(in), static_cast<cufftComplex*>(out)),
            "cufftExecR2C");
      }
      return;
    case FftKind::C2R:
      if (dbl) {
        check_cufft(cufftExecZ2D(plan.handle, static_cast<cufftDoubleComplex*>(in),
                                 static_cast<cufftDoubleReal*>(out)),
                    "cufftExecZ2D");
      } else {
        check_cufft(
            cufftExecC2R(plan.handle, static_cast<cufftComplex*>(in), static_cast<cufftReal*>(out)),
            "cufftExecC2R");
      }
      return;
  }
}

// The device side of the stages: scratch from the allocator, the strided copy kernel, cuFFT.
class DeviceRunner final : public FftStageRunner {
 public:
  DeviceRunner(CudaContext& ctx, bool dbl) : ctx_(ctx), dbl_(dbl) {}
  void* allocate(size_t bytes) override {
    scratch_.push_back(ctx_.scratch(bytes));
    return scratch_.back()->data();
  }
  void copy(const DeviceView& src, const ir::Shape& shape, void* dst, DType dst_dtype,
            const std::vector<int64_t>& dst_strides, const CopyOptions& options) override {
    strided_copy(ctx_, src, shape, dst, dst_dtype, dst_strides, options);
  }
  void transform(const FftStage& stage, void* in, void* out) override {
    execute(ctx_, stage, dbl_, in, out);
  }

 private:
  CudaContext& ctx_;
  bool dbl_;
  std::vector<std::shared_ptr<engine::Buffer>> scratch_;
};

void run(CudaContext& ctx, const ir::Node& node, const engine::TensorValue& x,
         const engine::TensorValue& y) {
  const DType out_t = y.type.dtype;
  const bool dbl = out_t == DType::Complex128 || out_t == DType::Float64;
  if (!strided_copy_supports(x.type.dtype, dbl ? DType::Complex128 : DType::Complex64) ||
      (out_t != DType::Complex64 && out_t != DType::Complex128 && out_t != DType::Float32 &&
       out_t != DType::Float64)) {
    throw Error(ErrorCode::Unsupported,
                "the CUDA backend does not run " + std::string(ir::name(node.op)) + " on " +
                    std::string(ir::name(x.type.dtype)) + " to " + std::string(ir::name(out_t)));
  }
  if (x.conj) {
    throw Error(ErrorCode::Internal, std::string(ir::name(node.op)) +
                                         " got a conj view: the planner copies those first");
  }
  if (y.type.numel() == 0) return;
  const FftPlanSpec spec = plan_fft(node.op, node.attrs, x.type.shape, y.type.shape);
  DeviceRunner runner(ctx, dbl);
  const DeviceView input{x.buffer ? x.raw() : nullptr, x.type.dtype, x.type.shape, strides_of(x)};
  run_fft_plan(spec, input, y.raw(), out_t, runner);  // y has elements: a buffer
}

}  // namespace

bool run_fft(CudaContext& ctx, const ir::Node& node, Values in, Values out) {
  if (node.op != Op::fft_c2c && node.op != Op::fft_r2c && node.op != Op::fft_c2r) return false;
  if (in.size() != 1 || out.size() != 1) {
    throw Error(ErrorCode::Internal,
                std::string(ir::name(node.op)) + " expects one input and one output");
  }
  run(ctx, node, in[0], out[0]);
  return true;
}

}  // namespace tensord::cuda
