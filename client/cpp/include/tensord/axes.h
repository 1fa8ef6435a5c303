// Which axes a reduction, squeeze or flip works on.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <vector>

namespace tensord {

// A value type: either "all axes" (the default: `x.sum()`, also `x.sum({})`) or a list of
// axes, negative ones counting from the end (`x.sum({1})`, `x.mean({0, 1})`, `x.sum(-1)`).
// A listed empty set reduces nothing: `Axes::none()`.
class Axes {
 public:
  Axes() = default;
  Axes(std::initializer_list<int64_t> axes) : list_(axes) {}
  Axes(std::vector<int64_t> axes) : list_(std::move(axes)) {}  // NOLINT: implicit on purpose
  Axes(int64_t axis) : list_(std::vector<int64_t>{axis}) {}    // NOLINT: implicit on purpose

  static Axes all() { return Axes(); }
  static Axes none() { return Axes(std::vector<int64_t>{}); }

  bool is_all() const { return !list_.has_value(); }
  // The listed axes; call only when !is_all().
  const std::vector<int64_t>& list() const { return *list_; }

 private:
  std::optional<std::vector<int64_t>> list_;
};

}  // namespace tensord
