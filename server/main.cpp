// tensord: the daemon's entry point. Parses the command line, opens the device, listens, and
// serves until SIGINT or SIGTERM.
#include <kj/async-unix.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "server/daemon.h"
#include "server/options.h"
#include "server/reproducers.h"

namespace {

// The thread whose event loop reads SIGINT and SIGTERM (through kj's signalfd). A signal
// handler can reach only static state.
pthread_t g_signal_thread;

// OpenBLAS (the CPU backend's LAPACK) starts its threads while the program loads, before main
// can block the signals in them; the kernel may deliver SIGTERM to such a thread, where the
// default action would kill the daemon. This handler runs there instead and hands the signal to
// the event loop's thread, where it is blocked and so waits for kj's signalfd.
void forward_to_event_loop(int signum) {
  pthread_kill(g_signal_thread, signum);
}

void forward_stray_signals() {
  g_signal_thread = pthread_self();
  struct sigaction action {};
  action.sa_handler = forward_to_event_loop;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

std::string describe(const tensord::engine::DeviceInfo& d) {
  return d.kind + ":" + std::to_string(d.index) + " " + d.name;
}

int run(const tensord::server::Options& options) {
  tensord::server::Logger log(options.log_level);
  try {
    auto io = kj::setupAsyncIo();
    tensord::server::Daemon daemon(options, log, io);
    tensord::server::install_crash_reproducers(daemon.reproducer_dir(), log);
    for (const auto& l : daemon.listeners()) {
      std::printf("tensord " TENSORD_VERSION " listening on %s\n", l.address().c_str());
    }
    if (const std::string url = daemon.dashboard_url(); !url.empty()) {
      std::printf("tensord " TENSORD_VERSION " dashboard on %s\n", url.c_str());
    }
    for (size_t i = 0; i < daemon.scheduler().device_count(); ++i) {
      std::printf("tensord " TENSORD_VERSION " device %s\n",
                  describe(daemon.scheduler().device_info(i)).c_str());
    }
    std::fflush(stdout);
    daemon.serve();
    log.info("stopped");
    return 0;
  } catch (const kj::Exception& e) {
    log.error(e.getDescription().cStr());
  } catch (const std::exception& e) {
    log.error(e.what());
  }
  return 1;
}

// Kernels' temporaries of a few MiB each (sort keys, index lists, widened copies) come from
// malloc. glibc maps blocks over its mmap threshold afresh each time, page faults and all, and
// raises that threshold only once it sees such a block freed, so how fast a kernel ran depended
// on what ran before it (nonzero 5.2-11.5 ms between runs here, bench/ops). Fixed at the
// ceiling glibc's own adjustment would reach, from the start; the trim threshold keeps freed
// blocks of that size in the heap. glibc's environment settings still win.
void set_malloc_thresholds() {
  if (std::getenv("MALLOC_MMAP_THRESHOLD_") || std::getenv("GLIBC_TUNABLES")) return;
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 128 << 20);
}

}  // namespace

int main(int argc, char** argv) {
  // Before any thread exists: the signals stay blocked in every thread but the event loop's.
  kj::UnixEventPort::captureSignal(SIGINT);
  kj::UnixEventPort::captureSignal(SIGTERM);
  forward_stray_signals();
  signal(SIGPIPE, SIG_IGN);  // a vanished client is an error on its socket, not our death
  set_malloc_thresholds();

  const char* token = std::getenv("TENSORD_TOKEN");
  auto cl = tensord::server::parse_command_line(
      argc, argv, token ? token : "",
      tensord::server::default_listen_address(std::getenv("XDG_RUNTIME_DIR"), getuid()));
  if (cl.text) {
    std::fputs(cl.text->c_str(), cl.exit_code == 0 ? stdout : stderr);
    return cl.exit_code;
  }
  return run(cl.options);
}
