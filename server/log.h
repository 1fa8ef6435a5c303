// One-line log records on stderr, filtered by level. Owned by the daemon and passed by
// reference: no global logger.
#pragma once

#include <cstdio>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace tensord::server {

enum class LogLevel { Error, Warn, Info, Debug };

std::optional<LogLevel> log_level_from_name(std::string_view name);
std::string_view name(LogLevel level);

class Logger {
 public:
  explicit Logger(LogLevel level, std::FILE* out = stderr) : level_(level), out_(out) {}

  bool enabled(LogLevel level) const { return level <= level_; }
  // Thread-safe; a record is one line: "2024-05-01T12:00:00.123Z info: <message>".
  void log(LogLevel level, std::string_view message);

  void error(std::string_view message) { log(LogLevel::Error, message); }
  void warn(std::string_view message) { log(LogLevel::Warn, message); }
  void info(std::string_view message) { log(LogLevel::Info, message); }
  void debug(std::string_view message) { log(LogLevel::Debug, message); }

 private:
  LogLevel level_;
  std::FILE* out_;
  std::mutex mu_;
};

}  // namespace tensord::server
