// Attribute values as words, for hashing and canonical forms. Floats go by bit pattern, so
// 0.0 and -0.0 differ (they make different tensors) and a NaN equals itself.
#pragma once

#include <bit>
#include <cstdint>

#include "engine/ir/attrs.h"

namespace tensord::ir {

// Calls `emit(word)` for each word of `v`: its kind, then its value (a list: length, items).
template <typename Emit>
void attr_value_words(const AttrValue& v, Emit&& emit) {
  emit(static_cast<uint64_t>(v.index()));
  if (const auto* i = std::get_if<int64_t>(&v)) {
    emit(static_cast<uint64_t>(*i));
  } else if (const auto* d = std::get_if<double>(&v)) {
    emit(std::bit_cast<uint64_t>(*d));
  } else if (const auto* b = std::get_if<bool>(&v)) {
    emit(*b ? 1u : 0u);
  } else if (const auto* ints = std::get_if<std::vector<int64_t>>(&v)) {
    emit(ints->size());
    for (int64_t x : *ints) emit(static_cast<uint64_t>(x));
  } else if (const auto* floats = std::get_if<std::vector<double>>(&v)) {
    emit(floats->size());
    for (double x : *floats) emit(std::bit_cast<uint64_t>(x));
  } else {
    emit(static_cast<uint64_t>(std::get<DType>(v)));
  }
}

// Equality with floats compared by bit pattern (see above); Attrs::operator== uses ==.
inline bool same_attrs(const Attrs& a, const Attrs& b) {
  const auto& x = a.items();
  const auto& y = b.items();
  if (x.size() != y.size()) return false;
  for (size_t i = 0; i < x.size(); ++i) {
    if (x[i].first != y[i].first || x[i].second.index() != y[i].second.index()) return false;
    if (const auto* d = std::get_if<double>(&x[i].second)) {
      if (std::bit_cast<uint64_t>(*d) != std::bit_cast<uint64_t>(std::get<double>(y[i].second))) {
        return false;
      }
    } else if (const auto* f = std::get_if<std::vector<double>>(&x[i].second)) {
      const auto& g = std::get<std::vector<double>>(y[i].second);
      if (f->size() != g.size()) return false;
      for (size_t k = 0; k < f->size(); ++k) {
        if (std::bit_cast<uint64_t>((*f)[k]) != std::bit_cast<uint64_t>(g[k])) return false;
      }
    } else if (x[i].second != y[i].second) {
      return false;
    }
  }
  return true;
}

}  // namespace tensord::ir
