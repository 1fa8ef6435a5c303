#include "engine/backends/cuda/index_scatter.h"

#include <bit>
#include <cmath>
#include <limits>

#include "engine/backends/cuda/cuda_check.h"
#include "engine/backends/cuda/movement_launch.h"
#include "engine/backends/cuda/movement_sources.h"
#include "engine/ir/error.h"

namespace tensord::cuda::index_ops {
namespace {

using engine::TensorValue;
using ir::Attr;
using ir::DType;
using ir::Op;
using ir::Shape;
using namespace movement;

enum Reduction : int64_t { kSum = 0, kProd = 1, kMean = 2, kAmax = 3, kAmin = 4 };

void run(CudaContext& ctx, const char* name, int64_t n, void** args) {
  launch(movement::kernel(ctx, index_kernel_source(), name), grid_of(ctx, n), dim3(kThreads), args,
         0, ctx.stream, name);
}

// `v` cast to the output's dtype first (as assignment into x would), then widened to `acc`.
TensorValue through(CudaContext& ctx, const TensorValue& v, DType out, DType acc) {
  if (v.type.dtype == out) return dense(ctx, v, acc);
  return dense(ctx, dense(ctx, v, out), acc);
}

// Where a reduction starts when x's own value does not take part.
uint64_t identity(int64_t reduction, DType acc) {
  if (acc == DType::Float64) {
    switch (reduction) {
      case kProd:
        return std::bit_cast<uint64_t>(1.0);
      case kAmax:
        return std::bit_cast<uint64_t>(-std::numeric_limits<double>::infinity());
      case kAmin:
        return std::bit_cast<uint64_t>(std::numeric_limits<double>::infinity());
      default:
        return std::bit_cast<uint64_t>(-0.0);  // -0 + x is x for every x, -0 included
    }
  }
  switch (reduction) {
    case kProd:
      return 1;
    case kAmax:
      return static_cast<uint64_t>(std::numeric_limits<int64_t>::min());
    case kAmin:
      return static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
    default:
      return 0;
  }
}

// The last-position-wins write shared by scatter and index_put: winners start at -1.
void* winners(CudaContext& ctx, int64_t targets,
              std::vector<std::shared_ptr<engine::Buffer>>& keep) {
  const size_t bytes = static_cast<size_t>(targets) * sizeof(int64_t);
  void* w = scratch(ctx, bytes, keep);
  check(cudaMemsetAsync(w, 0xff, bytes, ctx.stream), "cudaMemsetAsync (winners)");
  return w;
}

}  // namespace

void run_scatter(CudaContext& ctx, const ir::Node& node, Values in, const TensorValue& out,
                 DType acc) {
  const auto rank = static_cast<int64_t>(out.type.shape.size());
  const int64_t axis = ir::normalize_axis(node.attrs.get_int(Attr::axis), rank);
  const bool reduce = node.op == Op::scatter_reduce;
  const int64_t reduction = reduce ? node.attrs.get_int(Attr::reduction) : kSum;
  if (reduction < kSum || reduction > kAmin) {
    throw Error(ErrorCode::InvalidGraph,
                "scatter_reduce's reduction must be 0 to 4, not " + std::to_string(reduction));
  }
  const bool include_self = node.attrs.get_bool(Attr::include_self, true);
  TensorValue result = dense(ctx, in[0], acc);
  TensorValue index = dense(ctx, in[1], DType::Int64);
  // scatter casts src straight to the accumulator; scatter_reduce through x's dtype (the CPU's).
  TensorValue src = reduce ? through(ctx, in[2], out.type.dtype, acc) : dense(ctx, in[2], acc);
  const IndexCheck c{&index, axis, out.type.shape[axis]};
  check_indices(ctx, {&c, 1});
  int64_t n = index.type.numel();
  if (n > 0) {
    ScatterGeom g;
    g.rank = rank;
    g.axis = axis;
    const std::vector<int64_t> xs = ir::contiguous_strides(out.type.shape);
    const std::vector<int64_t> ss = ir::contiguous_strides(src.type.shape);
    for (int64_t d = 0; d < rank; ++d) {
      g.size[d] = index.type.shape[d];
      g.xs[d] = xs[d];
      g.ss[d] = ss[d];
    }
    void* ip = index.raw();
    void* ap = result.raw();
    void* sp = src.raw();
    const bool f64 = acc == DType::Float64;
    std::vector<std::shared_ptr<engine::Buffer>> keep;
    if (node.op == Op::scatter) {
      void* w = winners(ctx, out.type.numel(), keep);
      void* a1[] = {&ip, &n, &g, &w};
      run(ctx, "td_scatter_winner", n, a1);
      void* a2[] = {&ip, &n, &g, &w, &ap, &sp};
      run(ctx, "td_scatter_write", n, a2);
    } else if (node.op == Op::scatter_add) {
      void* a[] = {&ip, &n, &g, &ap, &sp};
      run(ctx, f64 ? "td_scatter_add_f64" : "td_scatter_add_i64", n, a);
    } else {
      int64_t m = out.type.numel();
      const size_t bytes = static_cast<size_t>(m) * sizeof(uint64_t);
      void* count = scratch(ctx, bytes, keep);
      zero(ctx, count, bytes);
      void* a1[] = {&ip, &n, &g, &count};
      run(ctx, "td_scatter_count", n, a1);
      if (!include_self) {
        uint64_t bits = identity(reduction, acc);
        void* a2[] = {&ap, &count, &m, &bits};
        run(ctx, "td_fill_counted", m, a2);
      }
      int r = static_cast<int>(reduction);
      void* a3[] = {&ip, &n, &g, &ap, &sp, &r};
      run(ctx, f64 ? "td_scatter_combine_f64" : "td_scatter_combine_i64", n, a3);
      if (reduction == kMean) {
        int64_t self = include_self ? 1 : 0;
        void* a4[] = {&ap, &count, &m, &self};
        run(ctx, f64 ? "td_scatter_mean_f64" : "td_scatter_mean_i64", m, a4);
      }
    }
  }
  copy(ctx, out.type.shape, view_of(out), view_of(result));
}

namespace {

// The rows a boolean mask over x's leading axes selects, in row-major order (read on the host).
std::vector<int64_t> mask_rows(CudaContext& ctx, const TensorValue& mask) {
  const TensorValue m = dense(ctx, mask, DType::Bool);
  std::vector<uint8_t> host(static_cast<size_t>(m.type.numel()));
  if (!host.empty()) {
    check(cudaMemcpyAsync(host.data(), m.raw(), host.size(), cudaMemcpyDeviceToHost, ctx.stream),
          "cudaMemcpyAsync (index_put mask)");
    check(cudaStreamSynchronize(ctx.stream), "cudaStreamSynchronize (index_put mask)");
  }
  std::vector<int64_t> rows;
  for (size_t k = 0; k < host.size(); ++k) {
    if (host[k] != 0) rows.push_back(static_cast<int64_t>(k));
  }
  return rows;
}

// Values' strides over slot = B + rest, split into the B part and the rest part.
void values_strides(PutGeom& g, const Shape& values, const Shape& b, const Shape& rest) {
  Shape slot = b;
  slot.insert(slot.end(), rest.begin(), rest.end());
  const std::vector<int64_t> vs = broadcast_strides(values, slot);
  g.brank = static_cast<int64_t>(b.size());
  g.rrank = static_cast<int64_t>(rest.size());
  for (size_t e = 0; e < b.size(); ++e) {
    g.bsize[e] = b[e];
    g.vb[e] = vs[e];
  }
  for (size_t e = 0; e < rest.size(); ++e) {
    g.rsize[e] = rest[e];
    g.vr[e] = vs[b.size() + e];
  }
}

}  // namespace

void run_index_put(CudaContext& ctx, const ir::Node& node, Values in, const TensorValue& out,
                   DType acc) {
  const bool accumulate = node.attrs.get_bool(Attr::accumulate, false);
  const Shape& x_shape = out.type.shape;
  TensorValue result = dense(ctx, in[0], acc);
  TensorValue values = through(ctx, in[1], out.type.dtype, acc);
  const Values indices = in.subspan(2);
  const std::vector<int64_t> xs = ir::contiguous_strides(x_shape);
  std::vector<std::shared_ptr<engine::Buffer>> keep;
  std::vector<TensorValue> idx;  // keeps the dense indices alive until the kernels are queued
  PutGeom g;
  Shape b;
  if (indices.size() == 1 && indices[0].type.dtype == DType::Bool) {
    const std::vector<int64_t> rows = mask_rows(ctx, indices[0]);
    const auto mask_rank = static_cast<int64_t>(indices[0].type.shape.size());
    const Shape rest(x_shape.begin() + mask_rank, x_shape.end());
    const auto count = static_cast<int64_t>(rows.size());
    const Shape& vshape = values.type.shape;
    if (vshape.size() == rest.size() + 1 && vshape[0] != 1 && vshape[0] != count) {
      Shape slot = rest;
      slot.insert(slot.begin(), count);
      throw Error(ErrorCode::Shape, "index_put's values " + ir::to_string(vshape) +
                                        " do not broadcast to the " + ir::to_string(slot) +
                                        " elements the mask selects");
    }
    b = {count};
    g.k = 1;
    g.tail = ir::numel(rest);
    g.xs[0] = g.tail;
    g.istr[0][0] = 1;
    auto* r = static_cast<int64_t*>(scratch(ctx, rows.size() * sizeof(int64_t), keep));
    if (!rows.empty()) {
      // Pageable source: the call returns once the bytes are staged, so `rows` may go.
      check(cudaMemcpyAsync(r, rows.data(), rows.size() * sizeof(int64_t), cudaMemcpyHostToDevice,
                            ctx.stream),
            "cudaMemcpyAsync (index_put rows)");
    }
    g.index[0] = r;
    values_strides(g, vshape, b, rest);
  } else {
    if (indices.size() > x_shape.size()) {
      throw Error(ErrorCode::Shape, "index_put got more indices than x has axes");
    }
    for (const TensorValue& i : indices) b = ir::broadcast_shapes(b, i.type.shape);
    std::vector<IndexCheck> checks;
    idx.reserve(indices.size());
    for (size_t d = 0; d < indices.size(); ++d) {
      idx.push_back(dense(ctx, indices[d], DType::Int64));
    }
    for (size_t d = 0; d < indices.size(); ++d) {
      checks.push_back({&idx[d], static_cast<int64_t>(d), x_shape[d]});
    }
    check_indices(ctx, checks);
    g.k = static_cast<int64_t>(indices.size());
    for (size_t d = 0; d < indices.size(); ++d) {
      const std::vector<int64_t> s = broadcast_strides(idx[d].type.shape, b);
      for (size_t e = 0; e < b.size(); ++e) g.istr[d][e] = s[e];
      g.xs[d] = xs[d];
      g.index[d] = static_cast<const int64_t*>(idx[d].raw());
    }
    const Shape rest(x_shape.begin() + static_cast<int64_t>(indices.size()), x_shape.end());
    g.tail = ir::numel(rest);
    values_strides(g, values.type.shape, b, rest);
  }
  int64_t n = ir::numel(b) * g.tail;
  if (n > 0) {
    void* ap = result.raw();
    void* vp = values.raw();
    const bool f64 = acc == DType::Float64;
    if (accumulate) {
      void* a[] = {&n, &g, &ap, &vp};
      run(ctx, f64 ? "td_put_add_f64" : "td_put_add_i64", n, a);
    } else {
      void* w = winners(ctx, out.type.numel(), keep);
      void* a1[] = {&n, &g, &w};
      run(ctx, "td_put_winner", n, a1);
      void* a2[] = {&n, &g, &w, &ap, &vp};
      run(ctx, "td_put_write", n, a2);
    }
  }
  copy(ctx, x_shape, view_of(out), view_of(result));
}

void run_searchsorted(CudaContext& ctx, const ir::Node& node, Values in, const TensorValue& out) {
  const TensorValue &seq_in = in[0], &values_in = in[1];
  if (seq_in.type.shape.empty()) throw Error(ErrorCode::Shape, "searchsorted needs a sequence");
  const bool floats = ir::is_floating(seq_in.type.dtype) || ir::is_floating(values_in.type.dtype);
  const DType cmp = floats ? DType::Float64 : DType::Int64;
  TensorValue seq = dense(ctx, seq_in, cmp), values = dense(ctx, values_in, cmp);
  int64_t len = seq.type.shape.back();
  int64_t n = values.type.numel();
  if (n == 0) return;
  if (len == 0) {  // every insertion point is 0
    zero(ctx, out.raw(), out.nbytes());
    return;
  }
  TensorValue sorter;
  const int64_t* order = nullptr;
  if (in.size() == 3) {
    sorter = dense(ctx, in[2], DType::Int64);
    const IndexCheck c{&sorter, static_cast<int64_t>(seq.type.shape.size()) - 1, len};
    check_indices(ctx, {&c, 1});
    order = static_cast<const int64_t*>(sorter.raw());
  }
  const int64_t rows = seq.type.numel() / len;
  int64_t per_row = seq.type.shape.size() == 1 ? n : n / std::max<int64_t>(rows, 1);
  if (per_row == 0) return;
  int right = node.attrs.get_bool(Attr::right, false) ? 1 : 0;
  const void* sp = seq.raw();
  const void* vp = values.raw();
  void* op = out.raw();
  void* a[] = {&sp, &order, &len, &vp, &n, &per_row, &right, &op};
  run(ctx, floats ? "td_search_f64" : "td_search_i64", n, a);
}

}  // namespace tensord::cuda::index_ops
