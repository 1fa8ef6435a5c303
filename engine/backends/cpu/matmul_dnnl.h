// oneDNN matmul primitives for float32, bfloat16 and float16, cached by problem layout.
#pragma once

#include <cstdint>
#include <list>
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
  // when oneDNN has no kernel for p.dtype on this CPU.
  bool run(const KernelContext& ctx, const MatmulProblem& p);

  size_t cached_primitives() const { return lru_.size(); }

 private:
  using Key = std::vector<int64_t>;
  struct KeyHash {
    size_t operator()(const Key& k) const;
  };
  struct Entry {
    Key key;
    dnnl::matmul primitive;
    dnnl::memory::desc a, b, c;
  };

  // The cached primitive for `p`, created on a miss; nullptr when the dtype is unimplemented.
  const Entry* find_or_create(const KernelContext& ctx, const MatmulProblem& p);

  dnnl::engine engine_;
  dnnl::stream stream_;
  std::list<Entry> lru_;  // most recently used first
  std::unordered_map<Key, std::list<Entry>::iterator, KeyHash> index_;
  bool unimplemented_[ir::kNumDTypes] = {};
};

}  // namespace tensord::cpu
