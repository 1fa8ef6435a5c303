// cdist and pdist on the CUDA backend: one thread per output distance (solver_kernels.h), on
// contiguous copies of the inputs (batch broadcast materialised by the strided copy), sums in
// float64 as on the CPU (kernels_distance.cpp).
#include <cmath>

#include "engine/backends/cuda/solver_common.h"
#include "engine/backends/cuda/solver_layout.h"

namespace tensord::cuda::solver {
namespace {

// The kernels' p: 1 p = 1, 2 p = 2, 3 p = 0, 4 p = inf, 0 any other.
int p_kind(double p) {
  if (p == 1) return 1;
  if (p == 2) return 2;
  if (p == 0) return 3;
  if (std::isinf(p)) return 4;
  return 0;
}

}  // namespace

template <typename T>
void run_distance(CudaContext& ctx, const ir::Node& node, Values in, Values out) {
  const engine::TensorValue& y = out[0];
  if (y.type.numel() == 0) return;
  double p = node.attrs.get_float(ir::Attr::ord, 2.0);
  int kind = p_kind(p);
  const ir::DType t = y.type.dtype;
  const engine::TensorValue& x1 = in[0];
  const ir::Shape& s1 = x1.type.shape;
  int64_t m = s1.back();
  Scratch scratch(ctx);
  void* yp = out_ptr(y);
  if (node.op == ir::Op::pdist) {
    int64_t n = s1[0];
    const DeviceView v = batch_view(data_of(x1), t, s1, strides_of(x1), {}, 2, false);
    T* x = contiguous_copy<T>(ctx, scratch, v, t);
    void* args[] = {&x, &n, &m, &kind, &p, &yp};
    launch_solver_kernel(ctx, "pdist", t, n * n, args);
    return;
  }
  const engine::TensorValue& x2 = in[1];
  const ir::Shape& os = y.type.shape;
  const ir::Shape batch(os.begin(), os.end() - 2);
  int64_t count = ir::numel(batch);
  int64_t rows1 = s1[s1.size() - 2], rows2 = x2.type.shape[x2.type.rank() - 2];
  T* a = contiguous_copy<T>(ctx, scratch,
                            batch_view(data_of(x1), t, s1, strides_of(x1), batch, 2, false), t);
  T* b = contiguous_copy<T>(
      ctx, scratch, batch_view(data_of(x2), t, x2.type.shape, strides_of(x2), batch, 2, false), t);
  void* args[] = {&a, &b, &count, &rows1, &rows2, &m, &kind, &p, &yp};
  launch_solver_kernel(ctx, "cdist", t, count * rows1 * rows2, args);
}

template void run_distance<float>(CudaContext&, const ir::Node&, Values, Values);
template void run_distance<double>(CudaContext&, const ir::Node&, Values, Values);

}  // namespace tensord::cuda::solver
