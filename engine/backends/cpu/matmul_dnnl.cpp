#include "engine/backends/cpu/matmul_dnnl.h"

#include <omp.h>

#include <algorithm>
#include <string>

#include "engine/ir/error.h"

namespace tensord::cpu {
namespace {

using dnnl::memory;

memory::data_type dnnl_type(ir::DType dtype) {
  switch (dtype) {
    case ir::DType::Float32:
      return memory::data_type::f32;
    case ir::DType::BFloat16:
      return memory::data_type::bf16;
    case ir::DType::Float16:
      return memory::data_type::f16;
    default:
      throw Error(ErrorCode::Internal, "no oneDNN type for " + std::string(ir::name(dtype)));
  }
}

// The descriptor of one operand: batch dims where it broadcasts become size 1 (oneDNN
// broadcasts those), and their stride is the span of what lies inside, as if contiguous.
memory::desc describe(const MatmulProblem& p, const MatrixOperand& x) {
  int rank = p.batch_rank + 2;
  memory::dims dims(rank), strides(rank);
  dims[rank - 2] = x.rows, dims[rank - 1] = x.cols;
  strides[rank - 2] = x.row_stride, strides[rank - 1] = x.col_stride;
  int64_t span = std::max(x.rows * x.row_stride, x.cols * x.col_stride);
  for (int d = p.batch_rank - 1; d >= 0; --d) {
    bool broadcast = x.batch_strides[d] == 0;
    dims[d] = broadcast ? 1 : p.batch[d];
    strides[d] = broadcast ? span : x.batch_strides[d];
    span = std::max(span, dims[d] * strides[d]);
  }
  return memory::desc(dims, dnnl_type(p.dtype), strides);
}

void append_key(std::vector<int64_t>& key, const MatmulProblem& p, const MatrixOperand& x) {
  key.push_back(x.row_stride);
  key.push_back(x.col_stride);
  for (int d = 0; d < p.batch_rank; ++d) key.push_back(x.batch_strides[d]);
}

}  // namespace

size_t DnnlMatmul::KeyHash::operator()(const Key& k) const {
  uint64_t h = 0xcbf29ce484222325ull;
  for (int64_t v : k) h = (h ^ static_cast<uint64_t>(v)) * 0x100000001b3ull;
  return static_cast<size_t>(h);
}

DnnlMatmul::DnnlMatmul() : engine_(dnnl::engine::kind::cpu, 0), stream_(engine_) {}

const DnnlMatmul::Entry* DnnlMatmul::find_or_create(const KernelContext& ctx,
                                                    const MatmulProblem& p,
                                                    const DnnlEpilogue* epilogue) {
  Key key = {static_cast<int64_t>(p.dtype), ctx.threads, p.batch_rank, p.m, p.k, p.n};
  for (int d = 0; d < p.batch_rank; ++d) key.push_back(p.batch[d]);
  append_key(key, p, p.a);
  append_key(key, p, p.b);
  if (epilogue) {
    key.push_back(-1);  // no layout word is negative: the epilogue's words cannot be mistaken
    key.insert(key.end(), epilogue->key.begin(), epilogue->key.end());
  }
  if (auto it = index_.find(key); it != index_.end()) {
    lru_.splice(lru_.begin(), lru_, it->second);
    return &*it->second;
  }
  memory::desc a = describe(p, p.a), b = describe(p, p.b), c = describe(p, p.c);
  Entry entry{key, {}, a, b, c, {}, {}, {}};
  if (epilogue) {
    entry.bias = epilogue->bias;
    entry.binary = epilogue->binary;
  }
  if (auto pd = create(a, b, c, epilogue)) {
    entry.primitive = dnnl::matmul(*pd);
    entry.scratchpad = pd->scratchpad_desc();
  } else if (!dtype_implemented(p.dtype)) {
    return &refused_;  // not cached: run() stops asking for this dtype
  }
  // A layout oneDNN refuses is cached too (with an empty primitive), so it is asked once.
  lru_.push_front(std::move(entry));
  index_.emplace(std::move(key), lru_.begin());
  if (lru_.size() > kCacheCapacity) {
    index_.erase(lru_.back().key);
    lru_.pop_back();
  }
  return &lru_.front();
}

std::optional<dnnl::matmul::primitive_desc> DnnlMatmul::create(const memory::desc& a,
                                                               const memory::desc& b,
                                                               const memory::desc& c,
                                                               const DnnlEpilogue* epilogue) {
  try {
    // The scratchpad (packed operands and the like) is ours to give, per run, so that it is
    // tracked as kernel scratch (scratch.h).
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    if (!epilogue) return dnnl::matmul::primitive_desc(dnnl::matmul::desc(a, b, c), attr, engine_);
    attr.set_post_ops(epilogue->post_ops);
    if (epilogue->bias) {
      return dnnl::matmul::primitive_desc(dnnl::matmul::desc(a, b, *epilogue->bias, c), attr,
                                          engine_);
    }
    return dnnl::matmul::primitive_desc(dnnl::matmul::desc(a, b, c), attr, engine_);
  } catch (const dnnl::error& e) {
    // Unimplemented, or a layout the matmul descriptor rejects (both operands broadcasting
    // one batch dim): the caller computes it another way.
    if (e.status == dnnl_unimplemented || e.status == dnnl_invalid_arguments) return std::nullopt;
    throw Error(ErrorCode::Internal, std::string("oneDNN matmul: ") + e.what());
  }
}

bool DnnlMatmul::dtype_implemented(ir::DType dtype) {
  // Probed with a plain row-major product: only a refusal of that one rules the dtype out.
  memory::desc plain({8, 8}, dnnl_type(dtype), memory::format_tag::ab);
  bool implemented = create(plain, plain, plain).has_value();
  unimplemented_[static_cast<size_t>(dtype)] = !implemented;
  return implemented;
}

bool DnnlMatmul::run(const KernelContext& ctx, const MatmulProblem& p,
                     const DnnlEpilogue* epilogue) {
  if (unimplemented_[static_cast<size_t>(p.dtype)]) return false;
  // oneDNN's OpenMP regions size themselves from this thread's ICV. Small products stay on
  // this thread: waking a team costs more than they do.
  KernelContext sized = ctx;
  if (p.batch_count() * p.m * p.n * p.k < kSerialWork) sized.threads = 1;
  omp_set_num_threads(sized.threads);
  const Entry* entry = find_or_create(sized, p, epilogue);
  if (!entry->primitive) return false;
  try {
    memory a(entry->a, engine_, p.a.data), b(entry->b, engine_, p.b.data),
        c(entry->c, engine_, p.c.data);
    std::unordered_map<int, memory> args = {
        {DNNL_ARG_SRC, a}, {DNNL_ARG_WEIGHTS, b}, {DNNL_ARG_DST, c}};
    if (epilogue) {
      // oneDNN reads these through non-const handles but never writes them.
      if (entry->bias) {
        args.emplace(DNNL_ARG_BIAS,
                     memory(*entry->bias, engine_, const_cast<void*>(epilogue->bias_data)));
      }
      for (size_t i = 0; i < entry->binary.size(); ++i) {
        if (entry->binary[i].is_zero()) continue;
        args.emplace(
            DNNL_ARG_ATTR_MULTIPLE_POST_OP(static_cast<int>(i)) | DNNL_ARG_SRC_1,
            memory(entry->binary[i], engine_, const_cast<void*>(epilogue->binary_data[i])));
      }
    }
    std::shared_ptr<engine::Buffer> scratchpad;
    if (entry->scratchpad.get_size() != 0) {
      scratchpad = scratch_buffer(ctx.scratch, entry->scratchpad.get_size());
      args.emplace(DNNL_ARG_SCRATCHPAD, memory(entry->scratchpad, engine_, scratchpad->data()));
    }
    entry->primitive.execute(stream_, args);
    stream_.wait();
  } catch (const dnnl::error& e) {
    throw Error(ErrorCode::Internal, std::string("oneDNN matmul: ") + e.what());
  }
  return true;
}

}  // namespace tensord::cpu
