// Starts the real `tensord` binary for an integration test and stops it again (RAII).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

namespace tensord::test {

struct DaemonOptions {
  // Extra command-line arguments after `--listen unix:<tmpdir>/tensord.sock`.
  std::vector<std::string> args;
  // Extra environment entries ("NAME=value") on top of the test's own environment.
  std::vector<std::string> env;
  // How long the daemon may take until its socket accepts connections.
  std::chrono::milliseconds startup_timeout{20000};

  static DaemonOptions with_args(std::vector<std::string> args) {
    DaemonOptions o;
    o.args = std::move(args);
    return o;
  }
  static DaemonOptions with_env(std::vector<std::string> env) {
    DaemonOptions o;
    o.env = std::move(env);
    return o;
  }
};

// How a stopped daemon ended.
struct DaemonExit {
  bool exited = false;     // ended by exit(); otherwise by a signal
  int code = 0;            // exit code, or the signal number
  bool timed_out = false;  // did not stop in time and was killed
  bool clean() const { return exited && code == 0 && !timed_out; }
  std::string str() const;
};

// Owns one daemon process listening on a unix socket in a fresh temporary directory. The
// binary is $TENSORD_BIN (ctest sets it), else build/bin/tensord. The constructor returns once
// the socket accepts connections and the daemon printed its addresses and devices, and throws
// std::runtime_error (with the daemon's output) when the daemon dies or does not come up in time.
// The destructor stops it with SIGTERM and prints a report to stderr if it did not exit cleanly.
class DaemonProcess {
 public:
  explicit DaemonProcess(DaemonOptions options = {});
  ~DaemonProcess();
  DaemonProcess(const DaemonProcess&) = delete;
  DaemonProcess& operator=(const DaemonProcess&) = delete;

  // "unix:/tmp/tensord-test-XXXXXX/tensord.sock": the form the daemon and clients accept.
  const std::string& address() const { return address_; }
  const std::string& socket_path() const { return socket_path_; }
  pid_t pid() const { return pid_; }
  bool running() const { return pid_ > 0; }

  // Everything the daemon wrote to stdout and stderr so far.
  std::string output() const;

  // SIGTERM, then waits (SIGKILL after `timeout`, reported as not clean). Idempotent: a second
  // call returns the first result.
  DaemonExit stop(std::chrono::milliseconds timeout = std::chrono::milliseconds(10000));

  // SIGKILL and reap: for tests of what clients see when the daemon dies.
  DaemonExit kill();

 private:
  void wait_until_accepting(std::chrono::milliseconds timeout);
  DaemonExit reap(std::chrono::milliseconds timeout);

  // The temporary directory, removed with everything in it (also when the constructor throws).
  struct TempDir {
    TempDir();
    ~TempDir();
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    std::string path;
  };

  TempDir dir_;
  std::string socket_path_;
  std::string address_;
  std::string log_path_;
  pid_t pid_ = -1;
  DaemonExit exit_;
};

// The daemon binary tests run: $TENSORD_BIN, else build/bin/tensord.
std::string daemon_binary();

}  // namespace tensord::test
