#include "server/reproducers.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <memory>

#include "engine/exec/running_plan.h"

namespace tensord::server {

std::string reproducer_dir(const Options& options, const std::string& kernel_cache_dir) {
  if (!options.repro_dir.empty()) return options.repro_dir;
  if (!kernel_cache_dir.empty()) return kernel_cache_dir + "/repro";
  return "/tmp/tensord-repro-" + std::to_string(getuid());
}

namespace {

// `dir`, created if missing as a directory only this user can enter (reproducers hold the bytes
// of the users' inputs; an existing directory keeps the permissions its owner gave it, the files
// are private anyway). A directory of someone else's (a shared /tmp) is refused.
bool private_dir(const std::string& dir, std::string& why) {
  std::error_code ec;
  const bool created = std::filesystem::create_directories(dir, ec);
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    why = "not a directory";
    return false;
  }
  if (st.st_uid != ::geteuid()) {
    why = "owned by another user";
    return false;
  }
  if (created && (st.st_mode & 077) != 0 && ::chmod(dir.c_str(), 0700) != 0) {
    why = std::strerror(errno);
    return false;
  }
  return true;
}

// write(2) until all of `data` is written; async-signal-safe (the crash handler uses it).
bool write_all(int fd, const char* data, size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

// Writes `text` to a new file `path` that only this user can read.
bool write_private(const std::string& path, const std::string& text) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return false;
  const bool written = write_all(fd, text.data(), text.size());
  return ::close(fd) == 0 && written;
}

}  // namespace

std::function<std::string(const std::string&)> reproducer_writer(std::string dir, Logger& log) {
  auto counter = std::make_shared<std::atomic<uint64_t>>(0);
  return [dir = std::move(dir), &log, counter](const std::string& reproducer) -> std::string {
    namespace fs = std::filesystem;
    std::string why;
    if (!private_dir(dir, why)) {
      log.error("cannot write a reproducer into " + dir + ": " + why);
      return {};
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
      return {};
    }
    fs::rename(stem + ".tmp", stem + ".json", ec);
    if (ec) {
      log.error("cannot write a reproducer into " + dir + ": " + ec.message());
      return {};
    }
    log.error(
        "internal error in the engine (the run failed, or ran unfused when its fused "
        "kernels did not compile); reproducer: " +
        stem + ".json (rerun with tensord-replay)");
    return stem + ".json";
  };
}

namespace {

// The handler's state, set once before it is installed: a signal handler reaches nothing else.
// crash_prefix is "DIR/crash-PID-", counted on by crash_count.
char crash_prefix[4096];
std::atomic<unsigned> crash_count{0};

// Appends `text` to `out` (of `cap` bytes, NUL-terminated) without allocating.
void append(char* out, size_t cap, const char* text) {
  size_t n = std::strlen(out);
  while (*text != '\0' && n + 1 < cap) out[n++] = *text++;
  out[n] = '\0';
}

void append_number(char* out, size_t cap, unsigned long value) {
  char digits[24];
  size_t n = 0;
  do {
    digits[n++] = static_cast<char>('0' + value % 10);
    value /= 10;
  } while (value != 0);
  char text[24];
  for (size_t k = 0; k < n; ++k) text[k] = digits[n - 1 - k];
  text[n] = '\0';
  append(out, cap, text);
}

// Only async-signal-safe calls: open, write, close, strlen.
void on_fatal_signal(int signum, siginfo_t* info, void*) {
  const int saved_errno = errno;
  if (const std::string* reproducer = engine::running_plan_reproducer()) {
    char path[sizeof crash_prefix + 32] = "";
    append(path, sizeof path, crash_prefix);
    append_number(path, sizeof path, crash_count.fetch_add(1));
    append(path, sizeof path, ".json");
    const int fd = ::open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd >= 0) {
      write_all(fd, reproducer->data(), reproducer->size());
      ::close(fd);
      char line[sizeof path + 160] = "tensord: fatal signal ";
      append_number(line, sizeof line, static_cast<unsigned long>(signum));
      append(line, sizeof line, " while a fused plan ran; reproducer: ");
      append(line, sizeof line, path);
      append(line, sizeof line, " (rerun with tensord-replay)\n");
      write_all(STDERR_FILENO, line, std::strlen(line));
    }
  }
  errno = saved_errno;
  // SA_RESETHAND put the default action back. A fault returns to the faulting instruction,
  // which faults again and ends the process; a signal sent by kill() must be raised again.
  if (info == nullptr || info->si_code <= 0) ::raise(signum);
}

}  // namespace

void install_crash_reproducers(const std::string& dir, Logger& log) {
  std::string why;
  if (!private_dir(dir, why)) {
    log.warn("no reproducers of crashes: " + dir + ": " + why);
    return;
  }
  const std::string prefix = dir + "/crash-" + std::to_string(getpid()) + "-";
  if (prefix.size() >= sizeof crash_prefix) {
    log.warn("no reproducers of crashes: the directory's name is too long: " + dir);
    return;
  }
  std::memcpy(crash_prefix, prefix.c_str(), prefix.size() + 1);
  struct sigaction action {};
  action.sa_sigaction = on_fatal_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_SIGINFO | SA_RESETHAND;
  for (int signum : {SIGSEGV, SIGBUS, SIGILL, SIGFPE}) sigaction(signum, &action, nullptr);
}

}  // namespace tensord::server
