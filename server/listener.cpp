#include "server/listener.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <utility>

namespace tensord::server {
namespace {

// Whether something accepts connections on the unix socket at `path`.
bool unix_socket_answers(const std::string& path) {
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.c_str(), sizeof(addr.sun_path) - 1);
  bool answers = connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
  close(fd);
  return answers;
}

// Makes `path` free for bind(): removes a stale socket, refuses anything else.
void claim_socket_path(const std::string& path) {
  if (path.size() >= sizeof(sockaddr_un::sun_path)) {
    throw std::runtime_error("unix socket path " + path + " is longer than " +
                             std::to_string(sizeof(sockaddr_un::sun_path) - 1) + " bytes");
  }
  struct stat st {};
  if (lstat(path.c_str(), &st) != 0) return;  // nothing there
  if (!S_ISSOCK(st.st_mode)) {
    throw std::runtime_error(path + " exists and is not a socket; not replacing it");
  }
  if (unix_socket_answers(path)) {
    throw std::runtime_error("another daemon is already listening on unix:" + path);
  }
  if (unlink(path.c_str()) != 0 && errno != ENOENT) {
    throw std::runtime_error("cannot remove the stale socket " + path + ": " + strerror(errno));
  }
}

kj::Own<kj::ConnectionReceiver> bind(kj::Network& network, kj::WaitScope& wait_scope,
                                     std::string_view kj_address, std::string_view shown) {
  try {
    auto address =
        network.parseAddress(kj::heapString(kj_address.data(), kj_address.size())).wait(wait_scope);
    return address->listen();
  } catch (const kj::Exception& e) {
    throw std::runtime_error("cannot listen on " + std::string(shown) + ": " +
                             e.getDescription().cStr());
  }
}

}  // namespace

Listener Listener::open(kj::Network& network, kj::WaitScope& wait_scope, std::string_view address) {
  if (address.starts_with("unix:")) {
    std::string path(address.substr(5));
    claim_socket_path(path);
    auto receiver = bind(network, wait_scope, address, address);
    struct stat st {};
    std::optional<SocketFile> file;
    if (lstat(path.c_str(), &st) == 0) file = SocketFile{path, st.st_dev, st.st_ino};
    return Listener(std::string(address), kj::mv(receiver), std::move(file));
  }
  if (address.starts_with("tcp:")) {
    std::string_view host_port = address.substr(4);
    auto receiver = bind(network, wait_scope, host_port, address);
    std::string host(host_port.substr(0, host_port.rfind(':')));
    std::string shown = "tcp:" + host + ":" + std::to_string(receiver->getPort());
    return Listener(std::move(shown), kj::mv(receiver), std::nullopt);
  }
  throw std::runtime_error("bad listen address '" + std::string(address) +
                           "': expected unix:PATH or tcp:HOST:PORT");
}

Listener::Listener(std::string address, kj::Own<kj::ConnectionReceiver> receiver,
                   std::optional<SocketFile> socket_file)
    : address_(std::move(address)),
      receiver_(kj::mv(receiver)),
      socket_file_(std::move(socket_file)) {}

Listener::Listener(Listener&& other) noexcept
    : address_(std::move(other.address_)),
      receiver_(kj::mv(other.receiver_)),
      socket_file_(std::exchange(other.socket_file_, std::nullopt)) {}

Listener::~Listener() {
  receiver_ = nullptr;  // close the socket before removing its name
  if (!socket_file_) return;
  struct stat st {};
  if (lstat(socket_file_->path.c_str(), &st) == 0 && st.st_dev == socket_file_->device &&
      st.st_ino == socket_file_->inode) {
    unlink(socket_file_->path.c_str());
  }
}

}  // namespace tensord::server
