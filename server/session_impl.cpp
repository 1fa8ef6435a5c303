#include "server/session_impl.h"

#include "server/device_wire.h"
#include "server/exceptions.h"
#include "server/function_impl.h"
#include "server/holdings_wire.h"
#include "server/kernel_caches.h"
#include "server/profile_stream.h"
#include "server/run_graph.h"
#include "server/shared_transfer.h"
#include "server/upload_sink_impl.h"
#include "server/wire_types.h"

namespace tensord::server {

kj::Promise<void> SessionImpl::run(RunContext context) {
  context.allowCancellation();  // a client that hangs up or gives up frees its queue slot
  return with_wire_errors([&] { return run_graph(core_, context); });
}

kj::Promise<void> SessionImpl::function(FunctionContext context) {
  context.allowCancellation();
  return with_wire_errors([&] { return define_function(core_, context); });
}

kj::Promise<void> SessionImpl::upload(UploadContext context) {
  return with_wire_errors([&]() -> kj::Promise<void> {
    auto params = context.getParams();
    ir::TensorType type{dtype_from_wire(params.getDtype()), shape_from_wire(params.getShape())};
    context.getResults().setSink(kj::heap<UploadSinkImpl>(core_, std::move(type)));
    return kj::READY_NOW;
  });
}

kj::Promise<void> SessionImpl::stats(StatsContext context) {
  auto s = context.getResults().initStats();
  const Account& account = *core_->account();
  s.setLiveTensors(account.usage().tensors);
  s.setLiveBytes(account.usage().bytes);
  s.setRuns(core_->runs());
  s.setDaemonLiveTensors(account.daemon_usage().tensors);
  s.setDaemonLiveBytes(account.daemon_usage().bytes);
  const std::vector<NamedKernelCacheStats> caches = kernel_caches(core_->daemon());
  if (!caches.empty() && caches.front().first == "host") {
    const cache::KernelCacheStats& k = caches.front().second;
    s.setKernelMemoryHits(k.memory_hits);
    s.setKernelDiskHits(k.disk_hits);
    s.setKernelMisses(k.misses);
    s.setKernelCompiles(k.compiles);
    s.setKernelCompileNanos(k.compile_ns);
  }
  auto wire_caches = s.initKernelCaches(static_cast<unsigned>(caches.size()));
  for (unsigned i = 0; i < caches.size(); ++i) {
    const auto& [target, k] = caches[i];
    wire_caches[i].setTarget(target);
    wire_caches[i].setMemoryHits(k.memory_hits);
    wire_caches[i].setDiskHits(k.disk_hits);
    wire_caches[i].setMisses(k.misses);
    wire_caches[i].setCompiles(k.compiles);
    wire_caches[i].setCompileNanos(k.compile_ns);
  }
  s.setCompileMode(std::string(engine::name(core_->compile_mode())));
  s.setFloat32MatmulPrecision(std::string(engine::name(core_->queue().float32_matmul_precision())));
  const std::vector<Holding> holdings = account.largest_holdings(3);
  write_holdings(s.initHoldings(static_cast<unsigned>(holdings.size())), holdings);
  return kj::READY_NOW;
}

kj::Promise<void> SessionImpl::uploadShared(UploadSharedContext context) {
  context.allowCancellation();
  return with_wire_errors([&]() -> kj::Promise<void> {
    auto params = context.getParams();
    ir::TensorType type{dtype_from_wire(params.getDtype()), shape_from_wire(params.getShape())};
    return upload_shared(core_, std::move(type), params.getMemory())
        .then([context](::Tensor::Client tensor) mutable {
          context.getResults().setTensor(kj::mv(tensor));
        });
  });
}

kj::Promise<void> SessionImpl::profile(ProfileContext context) {
  return with_wire_errors([&] { return start_profile(core_, context); });
}

kj::Promise<void> SessionImpl::setCompileMode(SetCompileModeContext context) {
  return with_wire_errors([&]() -> kj::Promise<void> {
    const std::string mode = context.getParams().getMode();
    auto m = engine::compile_mode_from_name(mode);
    if (!m) {
      throw Error(ErrorCode::InvalidGraph,
                  "unknown compile mode '" + mode +
                      "': expected eager, default, reduce-overhead or max-autotune");
    }
    core_->set_compile_mode(*m);
    return kj::READY_NOW;
  });
}

kj::Promise<void> SessionImpl::setFloat32MatmulPrecision(SetFloat32MatmulPrecisionContext context) {
  return with_wire_errors([&]() -> kj::Promise<void> {
    const std::string precision = context.getParams().getPrecision();
    auto p = engine::float32_matmul_precision_from_name(precision);
    if (!p) {
      throw Error(ErrorCode::InvalidGraph, "unknown float32 matmul precision '" + precision +
                                               "': expected highest, high or medium");
    }
    core_->queue().set_float32_matmul_precision(*p);
    return kj::READY_NOW;
  });
}

kj::Promise<void> SessionImpl::memoryStats(MemoryStatsContext context) {
  return with_wire_errors([&]() -> kj::Promise<void> {
    const scheduler::Scheduler& scheduler = *core_->daemon().scheduler;
    auto devices =
        context.getResults().initDevices(static_cast<unsigned>(scheduler.device_count()));
    for (size_t i = 0; i < scheduler.device_count(); ++i) {
      memory_stats_to_wire(scheduler.device_info(i), scheduler.memory_stats(i), devices[i]);
      devices[i].setSessionDevice(i == core_->queue().device());
    }
    return kj::READY_NOW;
  });
}

kj::Promise<void> SessionImpl::explain(ExplainContext context) {
  return with_wire_errors([&] { return explain_graph(core_, context); });
}

}  // namespace tensord::server
