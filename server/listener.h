// Listening sockets for the --listen addresses. A unix socket path left behind by a dead daemon
// is replaced; one a live daemon still answers on is reported, never stolen.
#pragma once

#include <kj/async-io.h>
#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>

namespace tensord::server {

class Listener {
 public:
  // Binds `address` ("unix:PATH" or "tcp:HOST:PORT"). Throws std::runtime_error with a message
  // for the user when it cannot.
  static Listener open(kj::Network& network, kj::WaitScope& wait_scope, std::string_view address);

  ~Listener();  // removes the socket file, if it is still the one we created
  Listener(Listener&& other) noexcept;
  Listener& operator=(Listener&&) = delete;

  // The address clients use; for tcp with port 0 it names the port the kernel picked.
  const std::string& address() const { return address_; }
  kj::ConnectionReceiver& receiver() { return *receiver_; }

 private:
  struct SocketFile {
    std::string path;
    dev_t device = 0;
    ino_t inode = 0;
  };

  Listener(std::string address, kj::Own<kj::ConnectionReceiver> receiver,
           std::optional<SocketFile> socket_file);

  std::string address_;
  kj::Own<kj::ConnectionReceiver> receiver_;
  std::optional<SocketFile> socket_file_;
};

}  // namespace tensord::server
