// Session: stats, explicit sync, and the creation ops.
#include "tensord/session.h"

#include <string>

#include "client/cpp/src/errors.h"
#include "client/cpp/src/recorder.h"
#include "client/cpp/src/session_state.h"
#include "client/cpp/src/sync.h"
#include "client/cpp/src/thread_owned.h"

namespace tensord {

using detail::record_creation;
using detail::TensorAccess;

Session::Session(std::shared_ptr<detail::SessionState> state) : state_(std::move(state)) {}

const ServerInfo& Session::info() const {
  return state_->info;
}

SessionStats Session::stats() {
  state_->check_thread();
  // Releases of dropped tensors wait in the event loop; send them before asking.
  state_->flush();
  try {
    auto response = state_->session.statsRequest().send().wait(state_->wait_scope());
    auto stats = response.getStats();
    SessionStats out;
    out.live_tensors = stats.getLiveTensors();
    out.live_bytes = stats.getLiveBytes();
    out.runs = stats.getRuns();
    out.daemon_live_tensors = stats.getDaemonLiveTensors();
    out.daemon_live_bytes = stats.getDaemonLiveBytes();
    out.kernel_memory_hits = stats.getKernelMemoryHits();
    out.kernel_disk_hits = stats.getKernelDiskHits();
    out.kernel_misses = stats.getKernelMisses();
    out.kernel_compiles = stats.getKernelCompiles();
    out.kernel_compile_ns = stats.getKernelCompileNanos();
    out.compile_mode = stats.getCompileMode();
    out.float32_matmul_precision = stats.getFloat32MatmulPrecision();
    for (auto k : stats.getKernelCaches()) {
      out.kernel_caches.push_back({k.getTarget(), k.getMemoryHits(), k.getDiskHits(), k.getMisses(),
                                   k.getCompiles(), k.getCompileNanos()});
    }
    for (auto h : stats.getHoldings()) {
      out.holdings.push_back({h.getOrigin(), h.getBytes(), h.getTensors()});
    }
    return out;
  } catch (const kj::Exception& e) {
    throw detail::translate(e, nullptr, std::source_location::current());
  }
}

void Session::sync(const std::vector<Tensor>& tensors, Loc loc) {
  std::vector<detail::SyncRequest> requests;
  for (const Tensor& t : tensors) {
    const auto& node = TensorAccess::node(t, loc);
    if (node->session != state_) {
      throw Error(ErrorCode::InvalidGraph, "sync of a tensor of another session", std::nullopt, {},
                  detail::where(loc));
    }
    requests.push_back({node, false});
  }
  detail::sync_point(*state_, requests, loc);
}

Tensor Session::from_bytes(ir::DType dtype, const ir::Shape& shape, std::vector<std::byte> bytes,
                           Loc loc) {
  ir::TensorType type{dtype, shape};
  int64_t numel = ir::checked_numel(shape);
  if (numel < 0 || static_cast<size_t>(numel) * ir::itemsize(dtype) != bytes.size()) {
    throw Error(ErrorCode::Shape,
                std::to_string(bytes.size() / ir::itemsize(dtype)) + " values do not fill shape " +
                    ir::to_string(shape),
                std::nullopt, "input", detail::where(loc));
  }
  auto node = detail::make_thread_owned<detail::TensorNode>(state_->thread, state_, std::move(type),
                                                            ir::Op::input, loc);
  node->state = detail::TensorNode::State::Host;
  node->host = std::move(bytes);
  return TensorAccess::wrap(std::move(node));
}

std::shared_ptr<HostBuffer> Session::host_buffer(size_t nbytes) {
  return state_->host_buffers.acquire(nbytes);
}

Tensor Session::from_buffer(ir::DType dtype, const ir::Shape& shape,
                            std::shared_ptr<const HostBuffer> buffer, Loc loc) {
  if (!buffer) throw Error(ErrorCode::InvalidGraph, "from_buffer of a null buffer");
  int64_t numel = ir::checked_numel(shape);
  if (numel < 0 || static_cast<size_t>(numel) * ir::itemsize(dtype) != buffer->size()) {
    throw Error(ErrorCode::Shape,
                "a buffer of " + std::to_string(buffer->size()) + " bytes does not fill " +
                    std::string(ir::name(dtype)) + ir::to_string(shape),
                std::nullopt, "input", detail::where(loc));
  }
  auto node = detail::make_thread_owned<detail::TensorNode>(
      state_->thread, state_, ir::TensorType{dtype, shape}, ir::Op::input, loc);
  node->state = detail::TensorNode::State::Host;
  node->host_buffer = std::move(buffer);
  return TensorAccess::wrap(std::move(node));
}

void Session::on_transfer(TransferObserver observer) {
  state_->on_transfer = std::move(observer);
}

Tensor Session::full(const ir::Shape& shape, Scalar value, Loc loc) {
  return full(shape, value, value.dtype(), loc);
}

Tensor Session::full(const ir::Shape& shape, Scalar value, ir::DType dtype, Loc loc) {
  return record_creation(state_, ir::Op::full,
                         {{ir::Attr::shape, shape},
                          {ir::Attr::value, detail::attr_value(value)},
                          {ir::Attr::dtype, dtype}},
                         loc);
}

Tensor Session::zeros(const ir::Shape& shape, ir::DType dtype, Loc loc) {
  return record_creation(state_, ir::Op::zeros,
                         {{ir::Attr::shape, shape}, {ir::Attr::dtype, dtype}}, loc);
}

Tensor Session::ones(const ir::Shape& shape, ir::DType dtype, Loc loc) {
  return record_creation(state_, ir::Op::ones, {{ir::Attr::shape, shape}, {ir::Attr::dtype, dtype}},
                         loc);
}

Tensor Session::arange(Scalar stop, Loc loc) {
  return arange(0, stop, 1, std::nullopt, loc);
}

Tensor Session::arange(Scalar start, Scalar stop, Scalar step, std::optional<ir::DType> dtype,
                       Loc loc) {
  if (!dtype) {
    bool any_float = start.kind() == ir::ScalarKind::Float ||
                     stop.kind() == ir::ScalarKind::Float || step.kind() == ir::ScalarKind::Float;
    dtype = any_float ? ir::kDefaultFloat : ir::kDefaultInt;
  }
  return record_creation(state_, ir::Op::arange,
                         {{ir::Attr::start, detail::attr_value(start)},
                          {ir::Attr::stop, detail::attr_value(stop)},
                          {ir::Attr::step, detail::attr_value(step)},
                          {ir::Attr::dtype, *dtype}},
                         loc);
}

Tensor Session::eye(int64_t n, std::optional<int64_t> m, int64_t k, ir::DType dtype, Loc loc) {
  ir::Attrs attrs{{ir::Attr::n, n}, {ir::Attr::k, k}, {ir::Attr::dtype, dtype}};
  if (m) attrs.set(ir::Attr::m, *m);
  return record_creation(state_, ir::Op::eye, std::move(attrs), loc);
}

Tensor Session::rand(const ir::Shape& shape, uint64_t seed, ir::DType dtype, Loc loc) {
  return record_creation(state_, ir::Op::rand,
                         {{ir::Attr::shape, shape},
                          {ir::Attr::seed, static_cast<int64_t>(seed)},
                          {ir::Attr::dtype, dtype}},
                         loc);
}

Tensor Session::randn(const ir::Shape& shape, uint64_t seed, ir::DType dtype, Loc loc) {
  return record_creation(state_, ir::Op::randn,
                         {{ir::Attr::shape, shape},
                          {ir::Attr::seed, static_cast<int64_t>(seed)},
                          {ir::Attr::dtype, dtype}},
                         loc);
}

}  // namespace tensord
