#include "engine/ir/error.h"

#include <array>
#include <cstdio>

namespace tensord {
namespace {

constexpr std::array<std::string_view, 10> kNames{
    "invalid_graph", "shape",     "dtype",           "unsupported", "out_of_memory",
    "quota",         "cancelled", "unauthenticated", "version",     "internal"};

std::string summary(ErrorCode code, const std::string& message, std::optional<uint32_t> node,
                    const std::string& op, const SourceLocation& where) {
  std::string s(name(code));
  s += " error";
  if (!op.empty()) s += " in " + op;
  if (node) s += " (node " + std::to_string(*node) + ")";
  if (!where.empty()) s += " at " + where.str();
  return s + ": " + message;
}

}  // namespace

std::string_view name(ErrorCode code) {
  return kNames[static_cast<size_t>(code)];
}

std::optional<ErrorCode> error_code_from_name(std::string_view n) {
  for (size_t i = 0; i < kNames.size(); ++i) {
    if (kNames[i] == n) return static_cast<ErrorCode>(i);
  }
  return std::nullopt;
}

Error::Error(ErrorCode code, std::string message, std::optional<uint32_t> node, std::string op,
             SourceLocation where)
    : std::runtime_error(summary(code, message, node, op, where)),
      code_(code),
      message_(std::move(message)),
      node_(node),
      op_(std::move(op)),
      where_(std::move(where)) {}

Error Error::at_node(uint32_t node, std::string op, SourceLocation where) const {
  if (node_) return *this;
  return Error(code_, message_, node, std::move(op), std::move(where));
}

std::string bytes_text(uint64_t bytes) {
  static constexpr std::array<const char*, 3> kUnits{"KiB", "MiB", "GiB"};
  if (bytes < 1024) return std::to_string(bytes) + " bytes";
  size_t unit = 0;
  double shown = static_cast<double>(bytes) / 1024;
  while (shown >= 1024 && unit + 1 < kUnits.size()) shown /= 1024, ++unit;
  char text[48];
  std::snprintf(text, sizeof text, "%.2f %s", shown, kUnits[unit]);
  return std::string(text) + " (" + std::to_string(bytes) + " bytes)";
}

}  // namespace tensord
