// oneDNN matmul primitives for float32, bfloat16 and float16, cached by problem layout.
#pragma once

#include <cstdint>
#include <list>
#include <optional>
#include <unordered_map>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>

#include "engine/backends/cpu/matmul.h"

namespace tensord::cpu {

// What oneDNN applies to a product as it writes it (a matmul epilogue): a bias of the dst's
// rank broadcast over all dims but the last (the primitive's own bias, before the post-ops),
// post-ops, and the tensors the binary post-ops read. `key` says all of it but the data.
struct DnnlEpilogue {
  std::vector<int64_t> key;
  std::optional<dnnl::memory::desc> bias;
  const void* bias_data = nullptr;
  dnnl::post_ops post_ops;
  std::vector<dnnl::memory::desc> binary;  // per post-op; empty desc: an eltwise one
  std::vector<const void*> binary_data;    // per post-op
};

class DnnlMatmul {
 public:
  static constexpr size_t kCacheCapacity = 256;
  static constexpr int64_t kSerialWork = int64_t{1} << 18;  // multiply-adds

  DnnlMatmul();

  // Runs `p` (operands plain: one unit stride per matrix) and returns true, or returns false
  // when oneDNN has no kernel for p.dtype on this CPU, or none for this layout.
  // With `epilogue`, the product goes through it before it is written; false also when
  // oneDNN refuses that epilogue.
  bool run(const KernelContext& ctx, const MatmulProblem& p,
           const DnnlEpilogue* epilogue = nullptr);

  size_t cached_primitives() const { return lru_.size(); }

 private:
  using Key = std::vector<int64_t>;
  struct KeyHash {
    size_t operator()(const Key& k) const;
  };
  struct Entry {
    Key key;
    dnnl::matmul primitive;  // empty when oneDNN has no kernel for this problem
    dnnl::memory::desc a, b, c;
    std::optional<dnnl::memory::desc> bias;
    std::vector<dnnl::memory::desc> binary;  // per post-op, as DnnlEpilogue::binary
    dnnl::memory::desc scratchpad;           // what the primitive needs per run (user mode)
  };

  // The cache entry for `p`, created on a miss.
  const Entry* find_or_create(const KernelContext& ctx, const MatmulProblem& p,
                              const DnnlEpilogue* epilogue);
  std::optional<dnnl::matmul::primitive_desc> create(const dnnl::memory::desc& a,
                                                     const dnnl::memory::desc& b,
                                                     const dnnl::memory::desc& c,
                                                     const DnnlEpilogue* epilogue = nullptr);
  bool dtype_implemented(ir::DType dtype);

  dnnl::engine engine_;
  dnnl::stream stream_;
  std::list<Entry> lru_;  // most recently used first
  std::unordered_map<Key, std::list<Entry>::iterator, KeyHash> index_;
  bool unimplemented_[ir::kNumDTypes] = {};
  const Entry refused_;  // what find_or_create answers for an unimplemented dtype
};

}  // namespace tensord::cpu
