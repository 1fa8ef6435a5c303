// A 64-bit hash over a stream of words (murmur3's 64-bit block mix and finalizer), used for
// canonical forms and CSE. Not for adversarial inputs alone: users compare the words too.
#pragma once

#include <bit>
#include <cstdint>

namespace tensord::ir {

class WordHasher {
 public:
  void add(uint64_t word) {
    word *= kC1;
    word = std::rotl(word, 31);
    word *= kC2;
    h_ ^= word;
    h_ = std::rotl(h_, 27) * 5 + 0x52dce729;
    ++count_;
  }

  uint64_t finish() const {
    uint64_t h = h_ ^ count_;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33;
    return h;
  }

 private:
  static constexpr uint64_t kC1 = 0x87c37b91114253d5ULL;
  static constexpr uint64_t kC2 = 0x4cf5ad432745937fULL;
  uint64_t h_ = 0x9e3779b97f4a7c15ULL;
  uint64_t count_ = 0;
};

}  // namespace tensord::ir
