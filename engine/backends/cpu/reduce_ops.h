// Reduction policies: how elements lift into an accumulator, combine, and finish as output.
#pragma once

#include <cstdint>
#include <limits>

#include "engine/backends/cpu/dispatch.h"

namespace tensord::cpu {

// sum: integers and bool accumulate in wrapping uint64 and give int64; floats keep their
// dtype and accumulate in ComputeT, pairwise.
template <typename T>
struct SumOp {
  using In = T;
  using Acc = std::conditional_t<kIsFloat<T>, ComputeT<T>, uint64_t>;
  using Out = std::conditional_t<kIsFloat<T>, T, int64_t>;
  static constexpr bool kPairwise = kIsFloat<T>;
  static Acc identity() { return Acc(0); }
  static Acc lift(ComputeT<T> x) { return static_cast<Acc>(x); }
  static Acc combine(Acc a, Acc b) { return a + b; }
  static Out finish(Acc a) { return static_cast<Out>(a); }
};

template <typename T>
struct ProdOp {
  using In = T;
  using Acc = std::conditional_t<kIsFloat<T>, ComputeT<T>, uint64_t>;
  using Out = std::conditional_t<kIsFloat<T>, T, int64_t>;
  static constexpr bool kPairwise = false;
  static Acc identity() { return Acc(1); }
  static Acc lift(ComputeT<T> x) { return static_cast<Acc>(x); }
  static Acc combine(Acc a, Acc b) { return a * b; }
  static Out finish(Acc a) { return static_cast<Out>(a); }
};

template <typename T>
constexpr ComputeT<T> lowest() {
  if constexpr (kIsFloat<T>)
    return -std::numeric_limits<ComputeT<T>>::infinity();
  else
    return std::numeric_limits<T>::lowest();
}
template <typename T>
constexpr ComputeT<T> highest() {
  if constexpr (kIsFloat<T>)
    return std::numeric_limits<ComputeT<T>>::infinity();
  else
    return std::numeric_limits<T>::max();
}

// max/min: a NaN accumulator stays, a NaN element takes over (select forms that vectorize).
template <typename T>
struct MaxOp {
  using In = T;
  using Acc = ComputeT<T>;
  using Out = T;
  static constexpr bool kPairwise = false;
  static Acc identity() { return lowest<T>(); }
  static Acc lift(ComputeT<T> x) { return x; }
  static Acc combine(Acc a, Acc b) { return a != a || a >= b ? a : b; }
  static Out finish(Acc a) { return static_cast<Out>(a); }
  // The larger of a and b when neither is NaN, on scalars or GCC vectors (kernels_reduce.cpp's
  // float rows track NaNs apart, so that this select vectorizes).
  template <typename V>
  static V pick(V a, V b) {
    return b > a ? b : a;
  }
};

template <typename T>
struct MinOp {
  using In = T;
  using Acc = ComputeT<T>;
  using Out = T;
  static constexpr bool kPairwise = false;
  static Acc identity() { return highest<T>(); }
  static Acc lift(ComputeT<T> x) { return x; }
  static Acc combine(Acc a, Acc b) { return a != a || a <= b ? a : b; }
  static Out finish(Acc a) { return static_cast<Out>(a); }
  template <typename V>
  static V pick(V a, V b) {
    return b < a ? b : a;
  }
};

// argmax/argmin: `better(v, best)` says whether v replaces the best so far. Ties keep the
// first index; the first NaN wins and nothing replaces it. kMax picks arg_scan.h's scan.
template <typename T>
struct ArgMaxOp {
  using In = T;
  static constexpr bool kMax = true;
  static bool better(ComputeT<T> v, ComputeT<T> best) {
    return v > best || (v != v && best == best);
  }
};

template <typename T>
struct ArgMinOp {
  using In = T;
  static constexpr bool kMax = false;
  static bool better(ComputeT<T> v, ComputeT<T> best) {
    return v < best || (v != v && best == best);
  }
};

}  // namespace tensord::cpu
