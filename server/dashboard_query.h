// What the dashboard's API handlers share (server/dashboard_profile.h, server/kept_profiles.h):
// their answer, and the reading of a query string ("session=3&seconds=2").
#pragma once

#include <charconv>
#include <optional>
#include <string>
#include <string_view>

namespace tensord::server {

struct DashboardAnswer {
  unsigned status =
      200;           // 200, or 400 (query), 404 (session, profile), 409 (profiled by its client)
  std::string body;  // JSON
};

// {"error": ...} with `status`.
DashboardAnswer error_answer(unsigned status, std::string_view error);

// The value of `key` in "a=1&b=2" ("" for "a&b=2"); nullopt when absent.
std::optional<std::string_view> query_parameter(std::string_view query, std::string_view key);

// The whole of `text` as a T; nullopt when it is not one.
template <typename T>
std::optional<T> query_number(std::string_view text) {
  T value{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

}  // namespace tensord::server
