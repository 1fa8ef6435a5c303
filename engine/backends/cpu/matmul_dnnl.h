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

class DnnlMatmul {
 public:
  static constexpr size_t kCacheCapacity = 256;
  static constexpr int64_t kSerialWork = int64_t{1} << 18;  // multiply-adds

  DnnlMatmul();

  // Runs `p` (operands plain: one unit stride per matrix) and returns true, or returns false
  // when oneDNN has no kernel for p.dtype on this CPU, or none for this layout.
  bool run(const KernelContext& ctx, const MatmulProblem& p);

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
  };

  // The cache entry for `p`, created on a miss.
  const Entry* find_or_create(const KernelContext& ctx, const MatmulProblem& p);
  std::optional<dnnl::matmul::primitive_desc> create(const dnnl::memory::desc& a,
                                                     const dnnl::memory::desc& b,
                                                     const dnnl::memory::desc& c);
  bool dtype_implemented(ir::DType dtype);

  dnnl::engine engine_;
  dnnl::stream stream_;
  std::list<Entry> lru_;  // most recently used first
  std::unordered_map<Key, std::list<Entry>::iterator, KeyHash> index_;
  bool unimplemented_[ir::kNumDTypes] = {};
  const Entry refused_;  // what find_or_create answers for an unimplemented dtype
};

}  // namespace tensord::cpu
