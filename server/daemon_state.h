// What every service of one daemon shares: configuration, the scheduler, the set that
// recognizes our own Tensor capabilities, and the daemon-wide usage. Event-loop only, except
// the scheduler, which is thread-safe. Shared (not owned by any one capability) so that objects
// the RPC system releases late still find it.
#pragma once

#include <capnp/capability.h>
#include <kj/timer.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/backends/cpu/host_block_cache.h"
#include "engine/cache/kernel_cache.h"
#include "engine/profiler/memory_ledger.h"
#include "scheduler/scheduler.h"
#include "server/accounting.h"
#include "server/activity.h"
#include "server/log.h"
#include "tensord.capnp.h"

namespace tensord::server {

struct DaemonConfig {
  std::string token;  // empty: no authentication
  uint64_t max_tensor_bytes = 0;
  uint64_t max_chunk_bytes = ::MAX_CHUNK_BYTES;
  uint64_t session_memory_limit = 0;  // bytes of live tensors per session; 0: none
  bool inline_small_runs = true;      // server/inline_runs.h
};

struct DaemonState {
  DaemonState(DaemonConfig config, Logger& log, std::unique_ptr<scheduler::Scheduler> scheduler)
      : config(std::move(config)), log(log), scheduler(std::move(scheduler)) {}

  const DaemonConfig config;
  Logger& log;
  std::unique_ptr<scheduler::Scheduler> scheduler;
  capnp::CapabilityServerSet<::Tensor> tensors;
  std::shared_ptr<Usage> usage = std::make_shared<Usage>();
  uint64_t next_session_id = 1;
  // The device's memory ledger (issue 7): blocks of sessions that record memory.
  std::shared_ptr<profiler::MemoryLedger> memory = std::make_shared<profiler::MemoryLedger>();
  kj::Timer* timer = nullptr;                   // the event loop's; profile streams flush on it
  std::shared_ptr<cache::KernelCache> kernels;  // shared by the devices; thread-safe
  std::string reproducer_dir;                   // where reproducers go (server/reproducers.h)
  // Host staging of chunked uploads, reused: a fresh 256 MiB staging buffer paid a page fault
  // per page, most of a TCP upload's time (bench/transfer). Thread-safe.
  std::shared_ptr<cpu::HostBlockCache> staging =
      std::make_shared<cpu::HostBlockCache>(size_t{512} << 20);
  // The live sessions and the recent runs, for the dashboard.
  ActivityLog activity;
  std::vector<std::string> listen;  // the addresses clients connect to, as bound
};

}  // namespace tensord::server
