// Node attributes: a small closed set of names, each with a typed value.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "engine/ir/dtype.h"

namespace tensord::ir {

// Every attribute name any op uses. The wire sends names; this enum is internal.
#define TENSORD_ATTRS(X)                                             \
  X(index)                                                           \
  X(dtype)                                                           \
  X(shape)                                                           \
  X(value)                                                           \
  X(start)                                                           \
  X(stop)                                                            \
  X(step)                                                            \
  X(n)                                                               \
  X(m)                                                               \
  X(k)                                                               \
  X(seed)                                                            \
  X(axis)                                                            \
  X(axes)                                                            \
  X(keepdim)                                                         \
  X(dims)                                                            \
  X(correction)                                                      \
  X(pads)                                                            \
  X(min)                                                             \
  X(max)                                                             \
  X(eps)                                                             \
  X(tanh)                                                            \
  X(normalized_ndim)                                                 \
  X(alpha)                                                           \
  X(beta)                                                            \
  X(threshold)                                                       \
  X(negative_slope)                                                  \
  X(ord)                                                             \
  /* linear algebra */                                               \
  X(upper)                                                           \
  X(full_matrices)                                                   \
  X(hermitian)                                                       \
  X(rtol)                                                            \
  X(atol)                                                            \
  X(reduction)                                                       \
  X(ignore_index)                                                    \
  X(label_smoothing)                                                 \
  X(delta)                                                           \
  X(log_target)                                                      \
  X(shifts)                                                          \
  X(reps)                                                            \
  X(repeats)                                                         \
  X(length)                                                          \
  X(right)                                                           \
  X(include_self)                                                    \
  X(accumulate)                                                      \
  /* issue 4: nn ops */                                              \
  X(stride)                                                          \
  X(padding)                                                         \
  X(dilation)                                                        \
  X(groups)                                                          \
  X(output_padding)                                                  \
  X(kernel)                                                          \
  X(ceil_mode)                                                       \
  X(count_include_pad)                                               \
  X(training)                                                        \
  X(is_causal)                                                       \
  X(scale)                                                           \
  X(p)                                                               \
  X(mode)                                                            \
  X(align_corners)                                                   \
  X(scales)                                                          \
  X(factor)                                                          \
  X(blank)                                                           \
  X(zero_infinity)                                                   \
  /* issue 4: special functions and sorting (p is shared with nn) */ \
  X(descending)                                                      \
  X(stable)                                                          \
  X(largest)                                                         \
  X(sorted)                                                          \
  X(interpolation)                                                   \
  /* issue 4: complex numbers and FFT */                             \
  X(fft_norm)                                                        \
  X(inverse)                                                         \
  /* issue 4: pooling's indices, avg_pool's divisor */               \
  X(return_indices)                                                  \
  X(divisor)                                                         \
  X(antialias)

enum class Attr : uint8_t {
#define TENSORD_ATTR_ENUM(name) name,
  TENSORD_ATTRS(TENSORD_ATTR_ENUM)
#undef TENSORD_ATTR_ENUM
};

std::string_view name(Attr a);
std::optional<Attr> attr_from_name(std::string_view name);

// Int, Float and Bool are scalars; Ints is a list (shapes, axes, permutations); Floats a list
// of doubles (interpolate's scales). Floats is last so the older kinds keep their index (it is
// hashed: attr_words.h).
using AttrValue =
    std::variant<int64_t, double, bool, std::vector<int64_t>, DType, std::vector<double>>;
enum class AttrKind : uint8_t {
  Int,
  Float,
  Bool,
  Ints,
  DType,
  Scalar /* Int, Float or Bool */,
  Floats
};

// Attributes of one node, kept sorted by name so equal attribute sets compare and hash equal.
class Attrs {
 public:
  Attrs() = default;
  Attrs(std::initializer_list<std::pair<Attr, AttrValue>> items);

  void set(Attr a, AttrValue v);
  bool has(Attr a) const { return find(a) != nullptr; }
  const AttrValue* find(Attr a) const;

  // Typed getters for validated nodes; the op schema guarantees presence and kind.
  int64_t get_int(Attr a) const;
  double get_float(Attr a) const;  // also accepts an Int or Bool value (scalars)
  bool get_bool(Attr a) const;
  const std::vector<int64_t>& get_ints(Attr a) const;
  DType get_dtype(Attr a) const;
  const std::vector<double>& get_floats(Attr a) const;

  // With a default for optional attributes.
  int64_t get_int(Attr a, int64_t fallback) const { return has(a) ? get_int(a) : fallback; }
  double get_float(Attr a, double fallback) const { return has(a) ? get_float(a) : fallback; }
  bool get_bool(Attr a, bool fallback) const { return has(a) ? get_bool(a) : fallback; }

  const std::vector<std::pair<Attr, AttrValue>>& items() const { return items_; }
  friend bool operator==(const Attrs&, const Attrs&) = default;

 private:
  std::vector<std::pair<Attr, AttrValue>> items_;
};

}  // namespace tensord::ir
