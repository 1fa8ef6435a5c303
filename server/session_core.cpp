#include "server/session_core.h"

#include "server/wire_types.h"

namespace tensord::server {
namespace {

// Session names come from clients: keep log lines one line and short.
std::string printable(std::string_view name) {
  constexpr size_t kMaxLength = 64;
  std::string out;
  for (char c : name.substr(0, kMaxLength)) {
    out += (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) ? '?' : c;
  }
  if (name.size() > kMaxLength) out += "...";
  return out;
}

}  // namespace

SessionCore::SessionCore(std::shared_ptr<DaemonState> daemon, std::string name, std::string client,
                         std::string peer)
    : daemon_(std::move(daemon)),
      id_(daemon_->next_session_id++),
      name_(printable(name)),
      client_(printable(client)),
      peer_(std::move(peer)),
      label_("session " + std::to_string(id_) + " '" + name_ + "'"),
      queue_(daemon_->scheduler->open_session()),
      account_(std::make_shared<Account>(daemon_->usage, daemon_->config.session_memory_limit)) {
  // As torch.compile's advice for GPUs: fuse and replay repeated plans as CUDA graphs. On the
  // CPU there is nothing to capture, so "default" says what happens.
  if (daemon_->scheduler->device_info(0).kind == "cuda") {
    compile_mode_ = engine::CompileMode::ReduceOverhead;
  }
  daemon_->activity.opened(*this, id_);
  std::string line = label_ + " opened";
  if (!client_.empty()) line += " by " + client_;
  if (!peer_.empty()) line += " (connection from " + peer_ + ")";
  daemon_->log.info(line);
}

void SessionCore::finished_run(ActivityLog::Clock::time_point start,
                               ActivityLog::Clock::duration waited, uint64_t nodes,
                               std::string error) {
  last_active_ = ActivityLog::Clock::now();
  if (error.empty()) {
    ++runs_;
  } else {
    ++failed_runs_;
  }
  daemon_->activity.finished(
      ActivityLog::Run{id_, name_, start, last_active_ - start, waited, nodes, std::move(error)});
}

SessionCore::~SessionCore() {
  daemon_->activity.closed(id_);
  size_t cancelled = queue_.queued();
  queue_.close();
  std::string line = label_ + " closed after " + std::to_string(runs_) + " runs";
  if (cancelled != 0) line += ", " + std::to_string(cancelled) + " queued jobs cancelled";
  daemon_->log.info(line);
}

uint64_t SessionCore::admit_upload(const ir::TensorType& type) const {
  const uint64_t bytes = checked_tensor_bytes(type, config().max_tensor_bytes);
  account_->check_room(bytes, "this upload");
  return bytes;
}

}  // namespace tensord::server
