// The CUDA C of the data-dependent family (dynamic_family.cpp): a compaction in two passes over
// chunks of the flat range, with the scan of the chunk counts between them, the row copies
// of repeat_interleave with tensor repeats, and unique's group kernels over sorted keys.
#include "engine/backends/cuda/movement_sources.h"

namespace tensord::cuda {
namespace {

// Chunk c of [0, n) is [c * len, min(n, (c + 1) * len)); one thread walks a chunk in order, so
// that the second pass writes its selections in row-major order from the chunk's offset (the
// exclusive scan of the first pass's counts). Selected: the test tensor's element is nonzero
// (NaN is; the dtype code says how to read it).
constexpr const char* kDynamic = R"(
__device__ __forceinline__ bool td_selected(const char* t, int code, td_i64 item, td_i64 k) {
  const td_val v = td_load(t + k * item, code);
  return v.is_int ? v.i != 0 : v.re != 0;
}
extern "C" __global__ void td_select_count(const char* t, int code, td_i64 item, td_i64 n,
                                           td_i64 len, td_i64 chunks, td_i64* counts) {
  for (td_i64 c = td_thread(); c < chunks; c += td_threads()) {
    const td_i64 end = n < (c + 1) * len ? n : (c + 1) * len;
    td_i64 hits = 0;
    for (td_i64 k = c * len; k < end; ++k) hits += td_selected(t, code, item, k);
    counts[c] = hits;
  }
}
// mode 0: the flat index k; 1: its coordinates over d (rank int64 each); 2: the element of x
// (contiguous, `xitem` bytes each) at k.
extern "C" __global__ void td_select_write(const char* t, int code, td_i64 item, td_i64 n,
                                           td_i64 len, td_i64 chunks, const td_i64* offsets,
                                           int mode, td_dims d, const char* x, td_i64 xitem,
                                           char* out) {
  for (td_i64 c = td_thread(); c < chunks; c += td_threads()) {
    const td_i64 end = n < (c + 1) * len ? n : (c + 1) * len;
    td_i64 at = offsets[c];
    for (td_i64 k = c * len; k < end; ++k) {
      if (!td_selected(t, code, item, k)) continue;
      if (mode == 0) {
        ((td_i64*)out)[at] = k;
      } else if (mode == 1) {
        td_i64 q = k;
        for (td_i64 r = d.rank - 1; r >= 0; --r) {
          ((td_i64*)out)[at * d.rank + r] = q % d.size[r];
          q /= d.size[r];
        }
      } else {
        for (td_i64 b = 0; b < xitem; ++b) out[at * xitem + b] = x[k * xitem + b];
      }
      ++at;
    }
  }
}
// Row i of each of the `outer` blocks of x (rows of `row` bytes) copied repeats[i] times, from
// output row o * total + starts[i].
extern "C" __global__ void td_repeat_rows(const char* x, char* out, td_i64 outer, td_i64 len,
                                          td_i64 row, const td_i64* starts,
                                          const td_i64* repeats, td_i64 total) {
  for (td_i64 t = td_thread(); t < outer * len; t += td_threads()) {
    const td_i64 o = t / len, i = t % len;
    const char* src = x + t * row;
    for (td_i64 r = 0; r < repeats[i]; ++r) {
      char* dst = out + (o * total + starts[i] + r) * row;
      for (td_i64 b = 0; b < row; ++b) dst[b] = src[b];
    }
  }
}
// unique over n (key, position) pairs sorted by the sort family's network (sort_common.h): a
// group starts where the key changes; a NaN key (when has_nan: one key for every NaN) starts a
// group of its own, as NaN equals nothing. flags feed the compaction above (their flat indices
// are the groups' first sorted positions).
extern "C" __global__ void td_unique_flags(const td_u64* keys, td_i64 n, int has_nan,
                                           td_u64 nan_key, td_u8* flags) {
  for (td_i64 s = td_thread(); s < n; s += td_threads()) {
    flags[s] = s == 0 || keys[s] != keys[s - 1] || (has_nan && keys[s] == nan_key);
  }
}
// Per group g (sorted positions starts[g] .. the next start): its value (x contiguous, `item`
// bytes), its first occurrence (the smallest position: ties sort by position) and its size.
extern "C" __global__ void td_unique_groups(const td_i64* starts, td_i64 groups, td_i64 n,
                                            const td_i64* pos, const char* x, td_i64 item,
                                            char* values, td_i64* first, td_i64* counts) {
  for (td_i64 g = td_thread(); g < groups; g += td_threads()) {
    const td_i64 s = starts[g], e = g + 1 < groups ? starts[g + 1] : n;
    first[g] = pos[s];
    counts[g] = e - s;
    for (td_i64 b = 0; b < item; ++b) values[g * item + b] = x[pos[s] * item + b];
  }
}
// inverse[pos[s]] = the group of sorted position s: the last start <= s (a binary search, so a
// single huge group costs no serial walk).
extern "C" __global__ void td_unique_inverse(const td_i64* starts, td_i64 groups, td_i64 n,
                                             const td_i64* pos, td_i64* inverse) {
  for (td_i64 s = td_thread(); s < n; s += td_threads()) {
    td_i64 lo = 0, hi = groups - 1;
    while (lo < hi) {
      const td_i64 mid = lo + (hi - lo + 1) / 2;
      if (starts[mid] <= s) lo = mid;
      else hi = mid - 1;
    }
    inverse[pos[s]] = lo;
  }
}
)";

}  // namespace

const std::string& dynamic_kernel_source() {
  static const std::string text = movement_prelude() + kDynamic;
  return text;
}

std::vector<KernelSource> dynamic_kernel_sources() {
  return {{"td_dynamic.cu",
           &dynamic_kernel_source(),
           {"td_select_count", "td_select_write", "td_repeat_rows", "td_unique_flags",
            "td_unique_groups", "td_unique_inverse"}}};
}

}  // namespace tensord::cuda
