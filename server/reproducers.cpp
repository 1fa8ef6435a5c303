#include "server/reproducers.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <memory>

namespace tensord::server {

std::string reproducer_dir(const Options& options, const std::string& kernel_cache_dir) {
  if (!options.repro_dir.empty()) return options.repro_dir;
  if (!kernel_cache_dir.empty()) return kernel_cache_dir + "/repro";
  return "/tmp/tensord-repro-" + std::to_string(getuid());
}

namespace {

// `dir`, created if missing, as a directory only this user can enter: reproducers hold the
// bytes of the users' inputs. A directory of someone else's (a shared /tmp) is refused.
bool private_dir(const std::string& dir, std::string& why) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    why = "not a directory";
    return false;
  }
  if (st.st_uid != ::geteuid()) {
    why = "owned by another user";
    return false;
  }
  if ((st.st_mode & 077) != 0 && ::chmod(dir.c_str(), 0700) != 0) {
    why = std::strerror(errno);
    return false;
  }
  return true;
}

// Writes `text` to a new file `path` that only this user can read.
bool write_private(const std::string& path, const std::string& text) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return false;
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  return ::close(fd) == 0 && done == text.size();
}

}  // namespace

std::function<void(const std::string&)> reproducer_writer(std::string dir, Logger& log) {
  auto counter = std::make_shared<std::atomic<uint64_t>>(0);
  return [dir = std::move(dir), &log, counter](const std::string& reproducer) {
    namespace fs = std::filesystem;
    std::string why;
    if (!private_dir(dir, why)) {
      log.error("cannot write a reproducer into " + dir + ": " + why);
      return;
    }
    const auto now = std::chrono::system_clock::now().time_since_epoch();
    const std::string stem =
        dir + "/repro-" +
        std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(now).count()) + "-" +
        std::to_string(getpid()) + "-" + std::to_string(counter->fetch_add(1));
    std::error_code ec;
    if (!write_private(stem + ".tmp", reproducer)) {
      fs::remove(stem + ".tmp", ec);
      log.error("cannot write a reproducer into " + dir);
      return;
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
