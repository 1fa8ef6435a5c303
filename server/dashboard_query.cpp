#include "server/dashboard_query.h"

#include <nlohmann/json.hpp>

namespace tensord::server {

DashboardAnswer error_answer(unsigned status, std::string_view error) {
  return {status, nlohmann::json{{"error", error}}.dump(-1, ' ', false,
                                                        nlohmann::json::error_handler_t::replace)};
}

std::optional<std::string_view> query_parameter(std::string_view query, std::string_view key) {
  while (!query.empty()) {
    const size_t amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    const size_t eq = pair.find('=');
    if (pair.substr(0, eq) == key) {
      return eq == std::string_view::npos ? std::string_view() : pair.substr(eq + 1);
    }
    if (amp == std::string_view::npos) break;
    query.remove_prefix(amp + 1);
  }
  return std::nullopt;
}

}  // namespace tensord::server
