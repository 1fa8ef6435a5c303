// The daemon as a program: flags, what it prints, signals, sockets.
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include <catch2/catch.hpp>

#include <regex>

#include "tests/integration/server/raw_client.h"
#include "tests/support/daemon/daemon_process.h"

namespace tensord::test {
namespace {

struct Ran {
  int exit_code = -1;
  std::string output;  // stdout and stderr
};

// Runs the daemon binary with `args` to completion (for flags that exit at once).
Ran run_binary(std::vector<std::string> args) {
  std::string binary = daemon_binary();
  args.insert(args.begin(), binary);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  int out[2];
  REQUIRE(pipe(out) == 0);
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    dup2(out[1], 1);
    dup2(out[1], 2);
    close(out[0]);
    execv(argv[0], argv.data());
    _exit(127);
  }
  close(out[1]);
  Ran ran;
  char buf[4096];
  ssize_t n;
  while ((n = read(out[0], buf, sizeof(buf))) > 0) ran.output.append(buf, n);
  close(out[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  ran.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return ran;
}

bool exists(const std::string& path) {
  struct stat st {};
  return lstat(path.c_str(), &st) == 0;
}

bool can_say_hello(const std::string& address, const std::string& token = "") {
  try {
    RawClient client(address);
    client.hello("probe", token);
    return true;
  } catch (const kj::Exception&) {
    return false;
  }
}

TEST_CASE("--help and --version print and exit 0; bad flags exit 2") {
  Ran help = run_binary({"--help"});
  REQUIRE(help.exit_code == 0);
  REQUIRE(help.output.find("--listen") != std::string::npos);
  REQUIRE(help.output.find("--max-tensor-bytes") != std::string::npos);
  REQUIRE(help.output.find("--time-slice-ms") != std::string::npos);
  REQUIRE(help.output.find("--session-memory-limit") != std::string::npos);
  REQUIRE(help.output.find("--background-compile on|off") != std::string::npos);
  REQUIRE(help.output.find("--cuda-programmatic-launch on|off") != std::string::npos);
  REQUIRE(help.output.find("--inline-small-runs on|off") != std::string::npos);
  Ran version = run_binary({"--version"});
  REQUIRE(version.exit_code == 0);
  REQUIRE(version.output == "tensord 0.1.0\n");
  for (auto bad : std::vector<std::vector<std::string>>{{"--frobnicate"},
                                                        {"--threads", "0"},
                                                        {"--threads"},
                                                        {"--time-slice-ms", "-1"},
                                                        {"--time-slice-ms", "60001"},
                                                        {"--session-memory-limit", "0"},
                                                        {"--session-memory-limit", "lots"},
                                                        {"--device", "tpu"},
                                                        {"--background-compile", "yes"},
                                                        {"--background-compile"},
                                                        {"--cuda-programmatic-launch", "1"},
                                                        {"--inline-small-runs", "yes"},
                                                        {"--log-level", "loud"},
                                                        {"--listen", "http://x"},
                                                        {"--max-tensor-bytes", "lots"},
                                                        {"--cache-dir"},
                                                        {"--compiler", ""},
                                                        {"--repro-dir"}}) {
    Ran r = run_binary(bad);
    INFO(bad[0] << ": " << r.output);
    REQUIRE(r.exit_code == 2);
    REQUIRE(r.output.find("tensord: ") == 0);
  }
}

TEST_CASE("a cache directory that cannot be created fails with a clear message") {
  Ran r = run_binary(
      {"--cache-dir", "/proc/tensord-no-such-dir", "--listen", "unix:/tmp/tensord-never.sock"});
  REQUIRE(r.exit_code == 1);
  REQUIRE(r.output.find("kernel cache directory") != std::string::npos);
}

// --device cuda and auto against the machine's GPUs: tests/integration/cuda.

TEST_CASE("the daemon prints its addresses and device, and SIGTERM stops it cleanly") {
  DaemonProcess daemon(
      DaemonOptions::with_args({"--listen", "tcp:127.0.0.1:0", "--device", "auto"}));
  std::string out = daemon.output();
  REQUIRE(out.find("tensord 0.1.0 listening on " + daemon.address() + "\n") != std::string::npos);
  std::smatch m;
  REQUIRE(std::regex_search(out, m, std::regex("listening on tcp:127\\.0\\.0\\.1:([0-9]+)\n")));
  REQUIRE(out.find("device cpu:0") != std::string::npos);

  // Both addresses serve; no token was configured, so any token is accepted.
  REQUIRE(can_say_hello(daemon.address()));
  REQUIRE(can_say_hello("127.0.0.1:" + m[1].str(), "anything"));

  DaemonExit e = daemon.stop();
  INFO(daemon.output());
  REQUIRE(e.clean());
  REQUIRE_FALSE(exists(daemon.socket_path()));
  REQUIRE(daemon.output().find("session 1 'probe' opened") != std::string::npos);
  REQUIRE(daemon.output().find("session 1 'probe' closed") != std::string::npos);
}

TEST_CASE("SIGINT stops the daemon cleanly while a client is connected") {
  DaemonProcess daemon;
  RawClient client(daemon.address());
  auto session = client.hello();
  REQUIRE(kill(daemon.pid(), SIGINT) == 0);
  DaemonExit e = daemon.stop();
  REQUIRE(e.clean());
  REQUIRE_FALSE(exists(daemon.socket_path()));
}

TEST_CASE("a stale socket file is replaced; a live daemon's socket is not") {
  std::string dir = "/tmp/tensord-cli-XXXXXX";
  REQUIRE(mkdtemp(dir.data()) != nullptr);
  std::string stale = dir + "/stale.sock";
  {
    // A socket file nobody listens on: what a killed daemon leaves.
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, stale.c_str(), sizeof(addr.sun_path) - 1);
    REQUIRE(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0);
    close(fd);
    REQUIRE(exists(stale));
  }
  {
    DaemonProcess first(DaemonOptions::with_args({"--listen", "unix:" + stale}));
    REQUIRE(can_say_hello("unix:" + stale));

    Ran second = run_binary({"--listen", first.address()});
    REQUIRE(second.exit_code == 1);
    REQUIRE(second.output.find("already listening on " + first.address()) != std::string::npos);
    REQUIRE(can_say_hello(first.address()));
    REQUIRE(first.stop().clean());
  }
  REQUIRE_FALSE(exists(stale));

  std::string regular = dir + "/regular-file";
  FILE* f = fopen(regular.c_str(), "w");
  REQUIRE(f != nullptr);
  fclose(f);
  Ran refused = run_binary({"--listen", "unix:" + regular});
  REQUIRE(refused.exit_code == 1);
  REQUIRE(refused.output.find("is not a socket") != std::string::npos);
  REQUIRE(exists(regular));
  unlink(regular.c_str());
  rmdir(dir.c_str());
}

TEST_CASE("the token can come from TENSORD_TOKEN") {
  DaemonProcess daemon(DaemonOptions::with_env({"TENSORD_TOKEN=from-env"}));
  REQUIRE_FALSE(can_say_hello(daemon.address(), ""));
  REQUIRE_FALSE(can_say_hello(daemon.address(), "from-en"));
  REQUIRE(can_say_hello(daemon.address(), "from-env"));
}

}  // namespace
}  // namespace tensord::test
