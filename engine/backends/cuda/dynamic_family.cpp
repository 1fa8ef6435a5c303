// The data-dependent ops on CUDA (ir::is_data_dependent; the engine runs them between plans):
// nonzero, flatnonzero, masked_select and repeat_interleave with tensor repeats, with the CPU
// backend's semantics (kernels_index_more.cpp). Selections are a compaction in two passes over
// chunks of the flat range (dynamic_sources.cpp): a count per chunk, one read of the counts to
// the host (which must learn the output's size anyway), their exclusive scan, then each chunk
// writes its selections from its offset, in row-major order. unique sorts the flat input with
// the sort family's network (sort_common.h), flags where groups start, compacts the flags into
// the groups' first sorted positions with the same two passes, and reads its four outputs off
// them (dynamic_sources.cpp).
#include <algorithm>
#include <string>
#include <vector>

#include "engine/backends/cuda/cuda_check.h"
#include "engine/backends/cuda/cuda_ops.h"
#include "engine/backends/cuda/movement_launch.h"
#include "engine/backends/cuda/movement_sources.h"
#include "engine/backends/cuda/sort_common.h"
#include "engine/backends/cuda/sort_sources.h"
#include "engine/ir/axes.h"
#include "engine/ir/error.h"

namespace tensord::cuda {
namespace {

using engine::TensorValue;
using ir::DType;
using ir::Op;
using movement::DeviceDims;

// Elements per chunk: about eight chunks per thread of a full grid, at least 1024.
int64_t chunk_length(const CudaContext& ctx, int64_t n) {
  const int64_t threads = int64_t{ctx.sm_count} * 32 * movement::kThreads;
  return std::max<int64_t>(1024, (n + threads * 8 - 1) / (threads * 8));
}

TensorValue fresh(CudaContext& ctx, DType t, ir::Shape shape) {
  ir::TensorType type{t, std::move(shape)};
  return TensorValue::contiguous(ctx.scratch(std::max<size_t>(type.nbytes(), 16)), type);
}

template <typename T>
std::vector<T> read_back(CudaContext& ctx, const void* src, int64_t count, const char* what) {
  std::vector<T> host(static_cast<size_t>(count));
  if (count > 0) {
    check(cudaMemcpyAsync(host.data(), src, host.size() * sizeof(T), cudaMemcpyDeviceToHost,
                          ctx.stream),
          what);
    check(cudaStreamSynchronize(ctx.stream), what);
  }
  return host;
}

// A device copy of `values` (scratch kept alive by `keep`). A copy from pageable memory has
// been staged when cudaMemcpyAsync returns, so `values` may go.
const int64_t* upload(CudaContext& ctx, const std::vector<int64_t>& values,
                      std::vector<std::shared_ptr<engine::Buffer>>& keep, const char* what) {
  void* p = movement::scratch(ctx, values.size() * sizeof(int64_t), keep);
  if (!values.empty()) {
    check(cudaMemcpyAsync(p, values.data(), values.size() * sizeof(int64_t), cudaMemcpyHostToDevice,
                          ctx.stream),
          what);
  }
  return static_cast<const int64_t*>(p);
}

enum class Emit : int { FlatIndex = 0, Coordinates = 1, Values = 2 };

// The elements of `x` where `test` (same shape, contiguous) is nonzero: their flat indices,
// their coordinates (nonzero: [hits, rank]) or their values.
TensorValue select(CudaContext& ctx, const TensorValue& test, const TensorValue& x, Emit emit) {
  // Kernel arguments are passed by address: these are not const.
  int64_t n = test.type.numel();
  int64_t len = chunk_length(ctx, n);
  int64_t chunks = (n + len - 1) / len;
  std::vector<std::shared_ptr<engine::Buffer>> keep;
  auto* counts = static_cast<int64_t*>(movement::scratch(ctx, chunks * sizeof(int64_t), keep));
  const char* t = static_cast<const char*>(test.raw());
  int code = movement::dtype_code(test.type.dtype);
  int64_t item = static_cast<int64_t>(ir::itemsize(test.type.dtype));
  const dim3 grid = movement::grid_of(ctx, chunks);
  if (chunks > 0) {
    void* args[] = {&t, &code, &item, &n, &len, &chunks, &counts};
    launch(movement::kernel(ctx, dynamic_kernel_source(), "td_select_count"), grid,
           dim3(movement::kThreads), args, 0, ctx.stream, "launching td_select_count");
  }
  std::vector<int64_t> offsets = read_back<int64_t>(ctx, counts, chunks, "reading chunk counts");
  int64_t hits = 0;
  for (int64_t& c : offsets) {
    const int64_t k = c;
    c = hits;
    hits += k;
  }
  const int64_t rank = test.type.rank();
  TensorValue out = emit == Emit::Values        ? fresh(ctx, x.type.dtype, {hits})
                    : emit == Emit::Coordinates ? fresh(ctx, DType::Int64, {hits, rank})
                                                : fresh(ctx, DType::Int64, {hits});
  if (hits == 0) return out;
  const int64_t* starts = upload(ctx, offsets, keep, "uploading chunk offsets");
  DeviceDims dims;
  dims.rank = rank;
  for (int64_t d = 0; d < rank; ++d) dims.size[d] = test.type.shape[d];
  int mode = static_cast<int>(emit);
  const char* xs = static_cast<const char*>(x.raw());
  int64_t xitem = static_cast<int64_t>(ir::itemsize(x.type.dtype));
  char* o = static_cast<char*>(out.raw());
  void* args[] = {&t, &code, &item, &n, &len, &chunks, &starts, &mode, &dims, &xs, &xitem, &o};
  launch(movement::kernel(ctx, dynamic_kernel_source(), "td_select_write"), grid,
         dim3(movement::kThreads), args, 0, ctx.stream, "launching td_select_write");
  return out;
}

TensorValue contiguous(CudaContext& ctx, const TensorValue& v) {
  return v.is_contiguous() && !v.conj ? v : movement::dense(ctx, v, v.type.dtype);
}

TensorValue repeat_interleave(CudaContext& ctx, const ir::Node& node, const TensorValue& in,
                              const TensorValue& repeats_in) {
  TensorValue x = contiguous(ctx, in);
  int64_t axis = 0;
  if (node.attrs.has(ir::Attr::axis)) {
    axis = ir::normalize_axis(node.attrs.get_int(ir::Attr::axis), in.type.rank());
  } else {
    x.type.shape = {in.type.numel()};
    x.strides = {1};
  }
  int64_t len = x.type.shape[axis];
  const TensorValue r = movement::dense(ctx, repeats_in, DType::Int64);
  const std::vector<int64_t> given =
      read_back<int64_t>(ctx, r.raw(), r.type.numel(), "reading repeat counts");
  std::vector<int64_t> repeats(static_cast<size_t>(len)), starts(static_cast<size_t>(len));
  int64_t total = 0;
  for (int64_t i = 0; i < len; ++i) {
    const int64_t v = given.size() == 1 ? given[0] : given[i];
    if (v < 0) {
      throw Error(ErrorCode::Shape,
                  "repeat_interleave got a negative repeat count " + std::to_string(v));
    }
    repeats[i] = v;
    starts[i] = total;
    if (__builtin_add_overflow(total, v, &total)) {
      throw Error(ErrorCode::OutOfMemory, "repeat_interleave's repeats overflow int64");
    }
  }
  ir::Shape shape = x.type.shape;
  shape[axis] = total;
  TensorValue out = fresh(ctx, x.type.dtype, shape);
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= x.type.shape[d];
  for (int64_t d = axis + 1; d < x.type.rank(); ++d) inner *= x.type.shape[d];
  int64_t row = inner * static_cast<int64_t>(ir::itemsize(x.type.dtype));
  if (out.type.numel() == 0) return out;
  std::vector<std::shared_ptr<engine::Buffer>> keep;
  const int64_t* dstarts = upload(ctx, starts, keep, "uploading repeat offsets");
  const int64_t* drepeats = upload(ctx, repeats, keep, "uploading repeat counts");
  const char* src = static_cast<const char*>(x.raw());
  char* dst = static_cast<char*>(out.raw());
  void* args[] = {&src, &dst, &outer, &len, &row, &dstarts, &drepeats, &total};
  launch(movement::kernel(ctx, dynamic_kernel_source(), "td_repeat_rows"),
         movement::grid_of(ctx, outer * len), dim3(movement::kThreads), args, 0, ctx.stream,
         "launching td_repeat_rows");
  return out;
}

// The sort key of NaN for the dtype (sort_prelude's key_f32 / key_f64, all NaNs one key), or
// false for a dtype without NaN.
bool nan_key_of(DType t, uint64_t& key) {
  if (!ir::is_floating(t)) return false;
  key = t == DType::Float64 ? 0xfff8000000000000ull : 0xffc00000ull;
  return true;
}

// unique's (values, first-occurrence indices, inverse indices, counts) as the CPU's run_unique:
// groups of equal values in ascending order (NaN last, each NaN its own group, -0.0 equal to
// 0.0, the value kept that of the first occurrence).
std::vector<TensorValue> unique(CudaContext& ctx, const TensorValue& x) {
  const DType t = x.type.dtype;
  // Kernel arguments are passed by address: these are not const.
  int64_t n = x.type.numel();
  std::vector<TensorValue> out;
  if (n == 0) {
    out = {fresh(ctx, t, {0}), fresh(ctx, DType::Int64, {0}),
           fresh(ctx, DType::Int64, x.type.shape), fresh(ctx, DType::Int64, {0})};
    return out;
  }
  bool every[ir::kMaxRank];
  std::fill(every, every + ir::kMaxRank, true);
  LineGeo g = lines_over(x, every);  // one line: the elements in row-major order
  int64_t P = next_pow2(n);
  std::vector<std::shared_ptr<engine::Buffer>> keep;
  void* keys = movement::scratch(ctx, static_cast<size_t>(P) * 8, keep);
  void* pos = movement::scratch(ctx, static_cast<size_t>(P) * 8, keep);
  void* xp = x.buffer->data();
  int desc = 0;
  void* load_args[] = {&g, &xp, &keys, &pos, &P, &desc};
  launch_named(ctx, sort_source(t), "sort_load", grid_for(ctx, P), dim3(256), load_args);
  sort_pairs(ctx, keys, pos, P, P);

  const TensorValue flags = fresh(ctx, DType::Bool, {n});
  uint64_t nan_key = 0;
  int has_nan = nan_key_of(t, nan_key) ? 1 : 0;
  void* f = flags.raw();
  void* flag_args[] = {&keys, &n, &has_nan, &nan_key, &f};
  launch(movement::kernel(ctx, dynamic_kernel_source(), "td_unique_flags"),
         movement::grid_of(ctx, n), dim3(movement::kThreads), flag_args, 0, ctx.stream,
         "launching td_unique_flags");
  const TensorValue starts = select(ctx, flags, flags, Emit::FlatIndex);  // one read to the host
  int64_t groups = starts.type.numel();

  const TensorValue xd = contiguous(ctx, x);
  out = {fresh(ctx, t, {groups}), fresh(ctx, DType::Int64, {groups}),
         fresh(ctx, DType::Int64, x.type.shape), fresh(ctx, DType::Int64, {groups})};
  const void* st = starts.raw();
  const void* xs = xd.raw();
  int64_t item = static_cast<int64_t>(ir::itemsize(t));
  void* values = out[0].raw();
  void* first = out[1].raw();
  void* inverse = out[2].raw();
  void* counts = out[3].raw();
  void* group_args[] = {&st, &groups, &n, &pos, &xs, &item, &values, &first, &counts};
  launch(movement::kernel(ctx, dynamic_kernel_source(), "td_unique_groups"),
         movement::grid_of(ctx, groups), dim3(movement::kThreads), group_args, 0, ctx.stream,
         "launching td_unique_groups");
  void* inverse_args[] = {&st, &groups, &n, &pos, &inverse};
  launch(movement::kernel(ctx, dynamic_kernel_source(), "td_unique_inverse"),
         movement::grid_of(ctx, n), dim3(movement::kThreads), inverse_args, 0, ctx.stream,
         "launching td_unique_inverse");
  return out;
}

}  // namespace

std::vector<TensorValue> run_dynamic(CudaContext& ctx, const ir::Node& node, Values in) {
  const TensorValue& x = in[0];
  if (ir::is_complex(x.type.dtype) && node.op != Op::repeat_interleave_tensor &&
      node.op != Op::masked_select) {
    movement::unsupported(node.op, x.type.dtype);
  }
  switch (node.op) {
    case Op::nonzero:
    case Op::flatnonzero: {
      const TensorValue t = contiguous(ctx, x);
      return {select(ctx, t, t, node.op == Op::nonzero ? Emit::Coordinates : Emit::FlatIndex)};
    }
    case Op::masked_select: {
      const ir::Shape shape = ir::broadcast_shapes(x.type.shape, in[1].type.shape);
      const TensorValue values = movement::dense(ctx, x, x.type.dtype, &shape);
      const TensorValue mask = movement::dense(ctx, in[1], DType::Bool, &shape);
      return {select(ctx, mask, values, Emit::Values)};
    }
    case Op::repeat_interleave_tensor:
      return {repeat_interleave(ctx, node, x, in[1])};
    case Op::unique:
      return unique(ctx, x);
    default:
      throw Error(ErrorCode::Unsupported,
                  "the CUDA backend does not run " + std::string(ir::name(node.op)) +
                      " yet (a data-dependent op; docs/cuda.md lists the ops without CUDA "
                      "kernels)");
  }
}

}  // namespace tensord::cuda
