#include "server/reproducers.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>

namespace tensord::server {

std::string reproducer_dir(const Options& options, const std::string& kernel_cache_dir) {
  if (!options.repro_dir.empty()) return options.repro_dir;
  if (!kernel_cache_dir.empty()) return kernel_cache_dir + "/repro";
  return "/tmp/tensord-repro-" + std::to_string(getuid());
}

std::function<void(const std::string&)> reproducer_writer(std::string dir, Logger& log) {
  auto counter = std::make_shared<std::atomic<uint64_t>>(0);
  return [dir = std::move(dir), &log, counter](const std::string& reproducer) {
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::create_directories(dir, ec);
    const auto now = std::chrono::system_clock::now().time_since_epoch();
    const std::string stem =
        dir + "/repro-" +
        std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(now).count()) + "-" +
        std::to_string(getpid()) + "-" + std::to_string(counter->fetch_add(1));
    {
      std::ofstream out(stem + ".tmp", std::ios::trunc);
      out << reproducer;
      if (!out) {
        log.error("cannot write a reproducer into " + dir);
        return;
      }
    }
    fs::rename(stem + ".tmp", stem + ".json", ec);
    if (ec) {
      log.error("cannot write a reproducer into " + dir + ": " + ec.message());
      return;
    }
    log.error(
        "internal error in the engine (the run failed, or ran unfused when its fused "
        "kernels did not compile); reproducer: " +
        stem + ".json (rerun with tensord-replay)");
  };
}

}  // namespace tensord::server
