#include "tests/support/daemon/daemon_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace tensord::test {
namespace {

using Clock = std::chrono::steady_clock;
constexpr std::chrono::milliseconds kPollInterval{10};

std::string make_temp_dir() {
  const char* base = std::getenv("TMPDIR");
  std::string pattern = std::string(base && *base ? base : "/tmp") + "/tensord-test-XXXXXX";
  // Unix socket paths are limited to 107 bytes; fall back to /tmp for deep TMPDIRs.
  if (pattern.size() + sizeof("/tensord.sock") > sizeof(sockaddr_un::sun_path)) {
    pattern = "/tmp/tensord-test-XXXXXX";
  }
  if (mkdtemp(pattern.data()) == nullptr) {
    throw std::runtime_error("DaemonProcess: mkdtemp failed: " + std::string(strerror(errno)));
  }
  return pattern;
}

bool socket_accepts(const std::string& path) {
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.c_str(), sizeof(addr.sun_path) - 1);
  bool ok = connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
  close(fd);
  return ok;
}

DaemonExit decode_status(int status) {
  DaemonExit e;
  if (WIFEXITED(status)) {
    e.exited = true;
    e.code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    e.code = WTERMSIG(status);
  }
  return e;
}

}  // namespace

DaemonProcess::TempDir::TempDir() : path(make_temp_dir()) {}

DaemonProcess::TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path, ignored);
}

std::string DaemonExit::str() const {
  std::string s = exited
                      ? "exited with code " + std::to_string(code)
                      : "killed by signal " + std::to_string(code) + " (" + strsignal(code) + ")";
  if (timed_out) s += " after not stopping in time";
  return s;
}

std::string daemon_binary() {
  const char* bin = std::getenv("TENSORD_BIN");
  return bin && *bin ? bin : "build/bin/tensord";
}

DaemonProcess::DaemonProcess(DaemonOptions options)
    : socket_path_(dir_.path + "/tensord.sock"),
      address_("unix:" + socket_path_),
      log_path_(dir_.path + "/daemon.log") {
  std::string binary = daemon_binary();
  if (access(binary.c_str(), X_OK) != 0) {
    throw std::runtime_error("DaemonProcess: daemon binary " + binary +
                             " is not executable (set TENSORD_BIN or build the tensord target)");
  }

  // Everything the child needs is built before fork: only async-signal-safe calls after it.
  std::vector<std::string> args{binary, "--listen", address_};
  args.insert(args.end(), options.args.begin(), options.args.end());
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_strings;
  for (char** e = environ; *e != nullptr; ++e) env_strings.emplace_back(*e);
  env_strings.insert(env_strings.end(), options.env.begin(), options.env.end());
  std::vector<char*> envp;
  for (std::string& e : env_strings) envp.push_back(e.data());
  envp.push_back(nullptr);

  int log_fd = open(log_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (log_fd < 0) {
    throw std::runtime_error("DaemonProcess: cannot create " + log_path_ + ": " + strerror(errno));
  }
  pid_ = fork();
  if (pid_ < 0) {
    close(log_fd);
    throw std::runtime_error("DaemonProcess: fork failed: " + std::string(strerror(errno)));
  }
  if (pid_ == 0) {
    dup2(log_fd, STDOUT_FILENO);
    dup2(log_fd, STDERR_FILENO);
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, STDIN_FILENO);
    execve(argv[0], argv.data(), envp.data());
    const char msg[] = "DaemonProcess: execve failed\n";
    ssize_t ignored = write(STDERR_FILENO, msg, sizeof(msg) - 1);
    (void)ignored;
    _exit(127);
  }
  close(log_fd);

  try {
    wait_until_accepting(options.startup_timeout);
  } catch (...) {
    kill();
    throw;
  }
}

namespace {

// The daemon listens (and so accepts connections) before it prints its banner: the addresses,
// then the devices, flushed together. Tests read the banner (the TCP port, the device) right
// after startup, so the constructor waits for its last line too (in the sanitizer build the banner
// once came after the first connect, and cli_test found no address in it).
bool banner_printed(const std::string& output) {
  const std::string text = "\n" + output;
  for (size_t at = text.find("\ntensord "); at != std::string::npos;
       at = text.find("\ntensord ", at + 1)) {
    const size_t line_end = text.find('\n', at + 1);
    if (line_end == std::string::npos) return false;  // a line still being written
    if (text.substr(at, line_end - at).find(" device ") != std::string::npos) return true;
  }
  return false;
}

}  // namespace

void DaemonProcess::wait_until_accepting(std::chrono::milliseconds timeout) {
  auto deadline = Clock::now() + timeout;
  while (!socket_accepts(socket_path_) || !banner_printed(output())) {
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      exit_ = decode_status(status);
      throw std::runtime_error("DaemonProcess: the daemon " + exit_.str() +
                               " before accepting connections on " + address_ + "; output:\n" +
                               output());
    }
    if (Clock::now() > deadline) {
      throw std::runtime_error("DaemonProcess: the daemon did not accept connections on " +
                               address_ + " and print its devices within " +
                               std::to_string(timeout.count()) + " ms; output:\n" + output());
    }
    std::this_thread::sleep_for(kPollInterval);
  }
}

DaemonProcess::~DaemonProcess() {
  if (running()) {
    DaemonExit e = stop();
    if (!e.clean()) {
      std::fprintf(stderr, "DaemonProcess: the daemon on %s %s; output:\n%s\n", address_.c_str(),
                   e.str().c_str(), output().c_str());
    }
  }
}

std::string DaemonProcess::output() const {
  std::ifstream in(log_path_);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

DaemonExit DaemonProcess::stop(std::chrono::milliseconds timeout) {
  if (!running()) return exit_;
  ::kill(pid_, SIGTERM);
  return reap(timeout);
}

DaemonExit DaemonProcess::kill() {
  if (!running()) return exit_;
  ::kill(pid_, SIGKILL);
  return reap(std::chrono::milliseconds(10000));
}

DaemonExit DaemonProcess::reap(std::chrono::milliseconds timeout) {
  auto deadline = Clock::now() + timeout;
  int status = 0;
  bool timed_out = false;
  while (waitpid(pid_, &status, WNOHANG) != pid_) {
    if (Clock::now() > deadline) {
      ::kill(pid_, SIGKILL);
      waitpid(pid_, &status, 0);
      timed_out = true;
      break;
    }
    std::this_thread::sleep_for(kPollInterval);
  }
  pid_ = -1;
  exit_ = decode_status(status);
  exit_.timed_out = timed_out;
  return exit_;
}

}  // namespace tensord::test
