#include "server/log.h"

#include <array>
#include <chrono>
#include <ctime>

namespace tensord::server {
namespace {

constexpr std::array<std::string_view, 4> kNames{"error", "warn", "info", "debug"};

std::string timestamp() {
  auto now = std::chrono::system_clock::now();
  std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  auto millis =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char buf[40];
  size_t n = std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &utc);
  std::snprintf(buf + n, sizeof(buf) - n, ".%03dZ", static_cast<int>(millis));
  return buf;
}

}  // namespace

std::optional<LogLevel> log_level_from_name(std::string_view n) {
  for (size_t i = 0; i < kNames.size(); ++i) {
    if (kNames[i] == n) return static_cast<LogLevel>(i);
  }
  return std::nullopt;
}

std::string_view name(LogLevel level) {
  return kNames[static_cast<size_t>(level)];
}

void Logger::log(LogLevel level, std::string_view message) {
  if (!enabled(level)) return;
  std::string line = timestamp();
  line += ' ';
  line += name(level);
  line += ": ";
  line += message;
  line += '\n';
  std::lock_guard lock(mu_);
  std::fwrite(line.data(), 1, line.size(), out_);
  std::fflush(out_);
}

}  // namespace tensord::server
