// The CUDA kernels of linear algebra (docs/ops.md "Linear algebra"): det, slogdet, inv, solve,
// cholesky, eigvalsh, eigh, qr, svdvals, svd, pinv, matrix_rank, lstsq through cuSOLVER, and
// cdist, pdist through NVRTC kernels. This file holds the dispatch and what the op files share
// (solver_common.h); the ops are in solver_factor.cpp, solver_svd.cpp, solver_distance.cpp.
#include <climits>

#include "engine/backends/cuda/cuda_check.h"
#include "engine/backends/cuda/solver_common.h"
#include "engine/backends/cuda/solver_kernels.h"

namespace tensord::cuda {
namespace solver {
namespace {

class SolverState final : public FamilyState {
 public:
  SolverState() { check_solver(cusolverDnCreate(&handle_), "cusolverDnCreate"); }
  ~SolverState() override { cusolverDnDestroy(handle_); }
  SolverState(const SolverState&) = delete;
  SolverState& operator=(const SolverState&) = delete;
  cusolverDnHandle_t get() const { return handle_; }

 private:
  cusolverDnHandle_t handle_ = nullptr;
};

const char* status_name(cusolverStatus_t s) {
  switch (s) {
    case CUSOLVER_STATUS_NOT_INITIALIZED:
      return "CUSOLVER_STATUS_NOT_INITIALIZED";
    case CUSOLVER_STATUS_ALLOC_FAILED:
      return "CUSOLVER_STATUS_ALLOC_FAILED";
    case CUSOLVER_STATUS_INVALID_VALUE:
      return "CUSOLVER_STATUS_INVALID_VALUE";
    case CUSOLVER_STATUS_ARCH_MISMATCH:
      return "CUSOLVER_STATUS_ARCH_MISMATCH";
    case CUSOLVER_STATUS_EXECUTION_FAILED:
      return "CUSOLVER_STATUS_EXECUTION_FAILED";
    case CUSOLVER_STATUS_INTERNAL_ERROR:
      return "CUSOLVER_STATUS_INTERNAL_ERROR";
    case CUSOLVER_STATUS_NOT_SUPPORTED:
      return "CUSOLVER_STATUS_NOT_SUPPORTED";
    default:
      return "cusolverStatus_t";
  }
}

bool is_solver_op(ir::Op op) {
  using ir::Op;
  switch (op) {
    case Op::det:
    case Op::inv:
    case Op::solve:
    case Op::cholesky:
    case Op::svdvals:
    case Op::eigvalsh:
    case Op::pinv:
    case Op::matrix_rank:
    case Op::lstsq:
    case Op::slogdet:
    case Op::qr:
    case Op::svd:
    case Op::eigh:
    case Op::cdist:
    case Op::pdist:
      return true;
    default:
      return false;
  }
}

template <typename T>
void run_typed(CudaContext& ctx, const ir::Node& node, Values in, Values out) {
  using ir::Op;
  switch (node.op) {
    case Op::cdist:
    case Op::pdist:
      return run_distance<T>(ctx, node, in, out);
    case Op::svdvals:
    case Op::svd:
    case Op::pinv:
    case Op::matrix_rank:
    case Op::lstsq:
      return run_svd<T>(ctx, node, in, out);
    default:
      return run_factor<T>(ctx, node, in, out);
  }
}

}  // namespace

void check_solver(cusolverStatus_t status, const char* what) {
  if (status == CUSOLVER_STATUS_SUCCESS) return;
  const ErrorCode code = status == CUSOLVER_STATUS_ALLOC_FAILED    ? ErrorCode::OutOfMemory
                         : status == CUSOLVER_STATUS_NOT_SUPPORTED ? ErrorCode::Unsupported
                                                                   : ErrorCode::Internal;
  throw Error(code, std::string("cuSOLVER ") + what + " failed: " + status_name(status) + " (" +
                        std::to_string(static_cast<int>(status)) + ")");
}

cusolverDnHandle_t handle(CudaContext& ctx) {
  if (!ctx.states.solver) ctx.states.solver = std::make_unique<SolverState>();
  cusolverDnHandle_t h = static_cast<SolverState&>(*ctx.states.solver).get();
  check_solver(cusolverDnSetStream(h, ctx.stream), "cusolverDnSetStream");
  return h;
}

std::vector<int> read_infos(CudaContext& ctx, const int* infos, int64_t count) {
  std::vector<int> host(static_cast<size_t>(count), 0);
  if (count == 0) return host;
  check(cudaMemcpyAsync(host.data(), infos, static_cast<size_t>(count) * sizeof(int),
                        cudaMemcpyDeviceToHost, ctx.stream),
        "cudaMemcpyAsync (cuSOLVER info codes)");
  check(cudaStreamSynchronize(ctx.stream), "cudaStreamSynchronize (cuSOLVER info codes)");
  return host;
}

int64_t first_bad(const std::vector<int>& infos) {
  for (size_t b = 0; b < infos.size(); ++b) {
    if (infos[b] != 0) return static_cast<int64_t>(b);
  }
  return -1;
}

void data_error(ir::Op op, const std::string& what, int64_t batch, int64_t count) {
  const std::string where = count > 1 ? " (batch element " + std::to_string(batch) + ")" : "";
  throw Error(ErrorCode::Shape, std::string(ir::name(op)) + ": " + what + where);
}

void routine_failed(ir::Op op, const char* routine, int info, int64_t batch, int64_t count) {
  if (info < 0) {
    throw Error(ErrorCode::Internal, std::string(ir::name(op)) + ": cuSOLVER " + routine +
                                         " rejected argument " + std::to_string(-info));
  }
  data_error(op, std::string(routine) + " did not converge (info " + std::to_string(info) + ")",
             batch, count);
}

int as_int(ir::Op op, int64_t v) {
  if (v > INT_MAX) {
    throw Error(ErrorCode::Unsupported, std::string("the CUDA backend runs ") +
                                            std::string(ir::name(op)) +
                                            " through cuSOLVER's 32-bit API: a size of " +
                                            std::to_string(v) + " is too large");
  }
  return static_cast<int>(v);
}

int64_t numel_prefix(const ir::Shape& s, size_t drop) {
  int64_t n = 1;
  for (size_t d = 0; d + drop < s.size(); ++d) n *= s[d];
  return n;
}

std::vector<int64_t> strides_of(const engine::TensorValue& v) {
  return v.strides.empty() ? ir::contiguous_strides(v.type.shape) : v.strides;
}

const void* data_of(const engine::TensorValue& v) {
  return v.buffer ? v.raw() : nullptr;
}

DeviceView matrices(const void* data, ir::DType t, const ir::Shape& batch, int64_t per_matrix,
                    int64_t rows, int64_t cols, int64_t s0, int64_t s1) {
  DeviceView v;
  v.data = data;
  v.dtype = t;
  v.shape = batch;
  v.strides = ir::contiguous_strides(batch);
  for (int64_t& s : v.strides) s *= per_matrix;
  v.shape.push_back(rows);
  v.shape.push_back(cols);
  v.strides.push_back(s0);
  v.strides.push_back(s1);
  return v;
}

void launch_solver_kernel(CudaContext& ctx, const char* base, ir::DType t, int64_t items,
                          void** args) {
  if (items <= 0) return;
  launch(solver_kernel(ctx, base, t), grid_for(ctx, items), dim3(256), args, 0, ctx.stream, base);
}

}  // namespace solver

bool run_solver(CudaContext& ctx, const ir::Node& node, Values in, Values out) {
  if (!solver::is_solver_op(node.op)) return false;
  const ir::DType t = in.empty() ? ir::DType::Float32 : in[0].type.dtype;
  bool same = true;
  for (const engine::TensorValue& v : in) same = same && v.type.dtype == t;
  if ((t != ir::DType::Float32 && t != ir::DType::Float64) || !same) {
    std::string dtypes;
    for (const engine::TensorValue& v : in) {
      dtypes += (dtypes.empty() ? "" : ", ") + std::string(ir::name(v.type.dtype));
    }
    throw Error(ErrorCode::Unsupported, "the CUDA backend runs " + std::string(ir::name(node.op)) +
                                            " on float32 and float64 only, got (" + dtypes + ")");
  }
  for (const engine::TensorValue& v : in) {
    if (v.conj) {
      throw Error(ErrorCode::Internal, std::string(ir::name(node.op)) +
                                           " got a conj view: the planner copies those first");
    }
  }
  if (t == ir::DType::Float32) {
    solver::run_typed<float>(ctx, node, in, out);
  } else {
    solver::run_typed<double>(ctx, node, in, out);
  }
  return true;
}

}  // namespace tensord::cuda
