// Opening a session: addresses, the event loop, the socket and Daemon.hello.
#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "client/cpp/src/errors.h"
#include "client/cpp/src/session_state.h"
#include "client/cpp/src/thread_owned.h"
#include "client/cpp/src/wire_graph.h"
#include "protocol/wire_error.h"

namespace tensord {
namespace {

// "unix:PATH" as KJ spells it, "tcp:HOST:PORT" as "HOST:PORT".
std::string kj_address(const std::string& address) {
  if (address.starts_with("unix:") && address.size() > 5) return address;
  if (address.starts_with("tcp:") && address.size() > 4) return address.substr(4);
  throw Error(ErrorCode::Unsupported,
              "address '" + address + "' is neither unix:PATH nor tcp:HOST:PORT");
}

kj::AsyncIoContext setup_event_loop() {
  try {
    return kj::setupAsyncIo();
  } catch (const kj::Exception& e) {
    throw Error(ErrorCode::Unsupported,
                "this thread already runs an event loop (another tensord Session?); open one "
                "Session per thread: " +
                    std::string(e.getDescription().cStr()));
  }
}

ServerInfo read_info(::ServerInfo::Reader in) {
  ServerInfo info;
  info.protocol_major = in.getVersion().getMajor();
  info.protocol_minor = in.getVersion().getMinor();
  info.daemon_version = in.getDaemonVersion().cStr();
  for (auto d : in.getDevices()) {
    info.devices.push_back(DeviceInfo{d.getKind().cStr(), d.getIndex(), d.getName().cStr(),
                                      d.getTotalMemory(), d.getThreads()});
  }
  info.max_chunk_bytes = in.getMaxChunkBytes();
  info.max_tensor_bytes = in.getMaxTensorBytes();
  return info;
}

}  // namespace

namespace detail {

SessionState::SessionState(kj::AsyncIoContext io_context, std::string addr)
    : io(std::move(io_context)), address(std::move(addr)), host_buffers(size_t{1} << 30) {
  calls_in_flight = kj::heap<kj::TaskSet>(call_errors);
}

SessionState::~SessionState() {
  // Members go in reverse order; spelled out because the order is the point.
  calls_in_flight = nullptr;
  session = nullptr;
  rpc = nullptr;
}

void SessionState::check_thread() const {
  if (std::this_thread::get_id() != thread) {
    throw Error(ErrorCode::Unsupported,
                "a tensord Session is used only from the thread that opened it; open one Session "
                "per thread");
  }
}

void SessionState::flush() {
  io.waitScope.poll();
}

}  // namespace detail

std::string default_client_description() {
  std::string user = "uid " + std::to_string(getuid());
  passwd entry{};
  passwd* found = nullptr;
  char buffer[1024];
  if (getpwuid_r(getuid(), &entry, buffer, sizeof buffer, &found) == 0 && found != nullptr) {
    user = found->pw_name;
  }
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  return user + "@" + (host[0] != '\0' ? host : "?") + " pid " + std::to_string(getpid());
}

std::string default_address() {
  if (const char* env = std::getenv("TENSORD_ADDRESS"); env && *env) return env;
  if (const char* dir = std::getenv("XDG_RUNTIME_DIR"); dir && *dir) {
    return std::string("unix:") + dir + "/tensord.sock";
  }
  return "unix:/tmp/tensord-" + std::to_string(getuid()) + ".sock";
}

Session connect(const std::string& address, const ConnectOptions& options) {
  std::string target = kj_address(address);
  auto state = detail::make_thread_owned<detail::SessionState>(std::this_thread::get_id(),
                                                               setup_event_loop(), address);
  kj::WaitScope& ws = state->wait_scope();
  kj::Own<kj::AsyncIoStream> stream;
  try {
    auto net_address = state->io.provider->getNetwork().parseAddress(target).wait(ws);
    stream = net_address->connect().wait(ws);
  } catch (const kj::Exception& e) {
    throw Error(ErrorCode::Cancelled,
                "cannot connect to " + address + ": " + std::string(e.getDescription().cStr()));
  }
  // KJ's unix sockets are capability streams: file descriptors (shared memory) can ride with
  // messages, at most one per message either way.
  state->passes_fds = address.starts_with("unix:");
  state->rpc = kj::heap<protocol::RpcConnection>(kj::mv(stream), state->passes_fds);

  auto hello = state->rpc->bootstrap().castAs<wire::Daemon>().helloRequest();
  auto version = hello.initClientVersion();
  version.setMajor(PROTOCOL_MAJOR);
  version.setMinor(PROTOCOL_MINOR);
  detail::set_text(options.token, [&](unsigned n) { return hello.initToken(n); });
  detail::set_text(options.session_name, [&](unsigned n) { return hello.initSessionName(n); });
  const std::string client = options.client.empty() ? default_client_description() : options.client;
  detail::set_text(client, [&](unsigned n) { return hello.initClient(n); });
  try {
    auto response = hello.send().wait(ws);
    state->session = response.getSession();
    state->info = read_info(response.getServer());
  } catch (const kj::Exception& e) {
    throw protocol::from_kj_exception(e);
  }
  if (state->info.protocol_major != PROTOCOL_MAJOR) {
    throw Error(ErrorCode::Version,
                "the daemon speaks protocol " + std::to_string(state->info.protocol_major) + "." +
                    std::to_string(state->info.protocol_minor) + ", this client " +
                    std::to_string(PROTOCOL_MAJOR) + "." + std::to_string(PROTOCOL_MINOR));
  }
  uint64_t daemon_chunk =
      state->info.max_chunk_bytes ? state->info.max_chunk_bytes : MAX_CHUNK_BYTES;
  state->chunk_bytes = std::min<uint64_t>(daemon_chunk, MAX_CHUNK_BYTES);
  return Session(std::move(state));
}

}  // namespace tensord
