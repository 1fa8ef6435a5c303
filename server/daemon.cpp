#include "server/daemon.h"

#include <kj/async-unix.h>
#include <signal.h>

#include <chrono>
#include <string>

#include "server/connection_server.h"
#include "server/devices.h"
#include "server/reproducers.h"

namespace tensord::server {
namespace {

std::shared_ptr<DaemonState> make_state(const Options& options, Logger& log) {
  auto kernels = open_kernel_cache(options);
  const std::string repro_dir = reproducer_dir(options, kernels->options().dir);
  if (!kernels->compiler_available()) {
    // Fused kernels would all fail to compile: plan eagerly instead, and say so once.
    log.warn("the C++ compiler '" + kernels->options().compiler.command +
             "' does not run: fusion is off (--compiler sets another)");
    kernels = nullptr;
  }
  auto devices = open_devices(options, log, kernels);
  // One memory ledger for the daemon: its devices' segments, and the staging cache's.
  auto memory = std::make_shared<profiler::MemoryLedger>();
  for (auto& device : devices) device->set_memory_ledger(memory);
  DaemonConfig config;
  config.token = options.token;
  config.max_tensor_bytes = options.max_tensor_bytes;
  config.session_memory_limit = options.session_memory_limit;
  config.inline_small_runs = options.inline_small_runs;
  if (config.max_tensor_bytes == 0) config.max_tensor_bytes = devices.front()->info().total_memory;
  if (config.max_tensor_bytes == 0) config.max_tensor_bytes = ir::Limits{}.max_tensor_bytes;
  engine::EngineOptions engine_options;
  engine_options.limits.max_tensor_bytes = static_cast<int64_t>(config.max_tensor_bytes);
  engine_options.on_internal_error = reproducer_writer(repro_dir, log);
  engine_options.crash_reproducers = true;  // main installs the handler that writes them
  engine_options.compile_in_background = options.background_compile;
  scheduler::SchedulerOptions scheduling;
  scheduling.time_slice = std::chrono::milliseconds(options.time_slice_ms);
  auto scheduler =
      std::make_unique<scheduler::Scheduler>(std::move(devices), engine_options, scheduling);
  auto state = std::make_shared<DaemonState>(std::move(config), log, std::move(scheduler));
  state->kernels = std::move(kernels);
  state->reproducer_dir = repro_dir;
  state->memory = memory;
  state->staging->set_observer(memory, profiler::MemoryCategory::Staging);
  return state;
}

}  // namespace

Daemon::Daemon(const Options& options, Logger& log, kj::AsyncIoContext& io)
    : io_(io), log_(log), state_(make_state(options, log)) {
  state_->timer = &io.provider->getTimer();
  for (const std::string& address : options.listen) {
    listeners_.push_back(Listener::open(io.provider->getNetwork(), io.waitScope, address));
    state_->listen.push_back(listeners_.back().address());
  }
  if (!options.dashboard.empty()) {
    dashboard_listener_.emplace(
        Listener::open(io.provider->getNetwork(), io.waitScope, options.dashboard));
    std::string page_dir = options.dashboard_dir;
    if (page_dir.empty()) page_dir = Dashboard::default_page_dir(TENSORD_DASHBOARD_BUILD_DIR);
    dashboard_ = kj::heap<Dashboard>(state_, io.provider->getTimer(), std::move(page_dir));
  }
}

std::string Daemon::dashboard_url() const {
  if (!dashboard_listener_) return {};
  const std::string& address = dashboard_listener_->address();
  if (address.starts_with("tcp:")) return "http://" + address.substr(4) + "/";
  return address;
}

Daemon::~Daemon() {
  state_->scheduler->shutdown();
}

int Daemon::serve() {
  int signal_number = 0;
  {
    ConnectionServer server(state_);
    kj::Vector<kj::Promise<void>> listening;
    for (Listener& l : listeners_) listening.add(server.listen(l));
    auto stop = io_.unixEventPort.onSignal(SIGINT)
                    .exclusiveJoin(io_.unixEventPort.onSignal(SIGTERM))
                    .then([](siginfo_t info) { return info.si_signo; });
    if (dashboard_) {
      // The dashboard failing is logged; the daemon goes on serving its clients.
      listening.add(dashboard_->listen(dashboard_listener_->receiver())
                        .catch_([this](kj::Exception&& e) -> kj::Promise<void> {
                          log_.error(std::string("the dashboard stopped: ") +
                                     e.getDescription().cStr());
                          return kj::NEVER_DONE;
                        }));
    }
    // listen() only ever resolves by failing; that failure ends serve() with the exception.
    auto failed = kj::joinPromises(listening.releaseAsArray()).then([] { return 0; });
    signal_number = stop.exclusiveJoin(kj::mv(failed)).wait(io_.waitScope);
    log_.info(std::string("stopping on ") + strsignal(signal_number));
  }
  // The server is gone, and with it every connection. Let the RPC system finish releasing
  // capabilities (closing sessions cancels their queued jobs), then stop the workers.
  io_.waitScope.poll();
  state_->scheduler->shutdown();
  io_.waitScope.poll();  // completions of cancelled jobs
  return signal_number;
}

}  // namespace tensord::server
