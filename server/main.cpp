// tensord: the daemon's entry point. Parses the command line, opens the device, listens, and
// serves until SIGINT or SIGTERM.
#include <kj/async-unix.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "server/daemon.h"
#include "server/options.h"

namespace {

std::string describe(const tensord::engine::DeviceInfo& d) {
  return d.kind + ":" + std::to_string(d.index) + " " + d.name;
}

int run(const tensord::server::Options& options) {
  tensord::server::Logger log(options.log_level);
  try {
    auto io = kj::setupAsyncIo();
    tensord::server::Daemon daemon(options, log, io);
    for (const auto& l : daemon.listeners()) {
      std::printf("tensord " TENSORD_VERSION " listening on %s\n", l.address().c_str());
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

}  // namespace

int main(int argc, char** argv) {
  // Before any thread exists: the signals stay blocked in every thread but the event loop's.
  kj::UnixEventPort::captureSignal(SIGINT);
  kj::UnixEventPort::captureSignal(SIGTERM);
  signal(SIGPIPE, SIG_IGN);  // a vanished client is an error on its socket, not our death

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
