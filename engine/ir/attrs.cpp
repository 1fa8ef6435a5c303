#include "engine/ir/attrs.h"

#include <algorithm>
#include <array>
#include <string>

#include "engine/ir/error.h"

namespace tensord::ir {
namespace {

constexpr std::array kAttrNames{
#define TENSORD_ATTR_NAME(name) std::string_view(#name),
    TENSORD_ATTRS(TENSORD_ATTR_NAME)
#undef TENSORD_ATTR_NAME
};

[[noreturn]] void missing(Attr a, std::string_view want) {
  throw Error(ErrorCode::Internal,
              "attribute '" + std::string(name(a)) + "' is missing or not " + std::string(want));
}

}  // namespace

std::string_view name(Attr a) {
  return kAttrNames[static_cast<size_t>(a)];
}

std::optional<Attr> attr_from_name(std::string_view n) {
  for (size_t i = 0; i < kAttrNames.size(); ++i) {
    if (kAttrNames[i] == n) return static_cast<Attr>(i);
  }
  return std::nullopt;
}

Attrs::Attrs(std::initializer_list<std::pair<Attr, AttrValue>> items) {
  for (const auto& [a, v] : items) set(a, v);
}

void Attrs::set(Attr a, AttrValue v) {
  auto it = std::lower_bound(items_.begin(), items_.end(), a,
                             [](const auto& item, Attr key) { return item.first < key; });
  if (it != items_.end() && it->first == a) {
    it->second = std::move(v);
  } else {
    items_.insert(it, {a, std::move(v)});
  }
}

const AttrValue* Attrs::find(Attr a) const {
  for (const auto& item : items_) {
    if (item.first == a) return &item.second;
  }
  return nullptr;
}

int64_t Attrs::get_int(Attr a) const {
  const AttrValue* v = find(a);
  if (v && std::holds_alternative<int64_t>(*v)) return std::get<int64_t>(*v);
  if (v && std::holds_alternative<bool>(*v)) return std::get<bool>(*v) ? 1 : 0;
  missing(a, "an int");
}

double Attrs::get_float(Attr a) const {
  const AttrValue* v = find(a);
  if (v && std::holds_alternative<double>(*v)) return std::get<double>(*v);
  if (v && std::holds_alternative<int64_t>(*v)) return static_cast<double>(std::get<int64_t>(*v));
  if (v && std::holds_alternative<bool>(*v)) return std::get<bool>(*v) ? 1.0 : 0.0;
  missing(a, "a number");
}

bool Attrs::get_bool(Attr a) const {
  const AttrValue* v = find(a);
  if (v && std::holds_alternative<bool>(*v)) return std::get<bool>(*v);
  missing(a, "a bool");
}

const std::vector<int64_t>& Attrs::get_ints(Attr a) const {
  const AttrValue* v = find(a);
  if (v && std::holds_alternative<std::vector<int64_t>>(*v)) {
    return std::get<std::vector<int64_t>>(*v);
  }
  missing(a, "a list of ints");
}

DType Attrs::get_dtype(Attr a) const {
  const AttrValue* v = find(a);
  if (v && std::holds_alternative<DType>(*v)) return std::get<DType>(*v);
  missing(a, "a dtype");
}

const std::vector<double>& Attrs::get_floats(Attr a) const {
  const AttrValue* v = find(a);
  if (v && std::holds_alternative<std::vector<double>>(*v))
    return std::get<std::vector<double>>(*v);
  missing(a, "a list of floats");
}

}  // namespace tensord::ir
