#include "bench/transfer/socket_peer.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "bench/common/figure.h"

namespace tensord::bench {
namespace {

constexpr size_t kCallBytes = size_t{1} << 20;

// A file descriptor that closes itself.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {
    if (fd_ < 0) throw std::runtime_error(std::string("socket peer: ") + std::strerror(errno));
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { ::close(fd_); }
  int get() const { return fd_; }

 private:
  int fd_;
};

void check(bool ok, const char* what) {
  if (!ok)
    throw std::runtime_error(std::string("socket peer: ") + what + ": " + std::strerror(errno));
}

void receive_all(int listener, char* out, size_t bytes) {
  Fd conn(::accept(listener, nullptr, nullptr));
  for (size_t got = 0; got < bytes;) {
    ssize_t n = ::recv(conn.get(), out + got, std::min(kCallBytes, bytes - got), 0);
    check(n > 0, "recv");
    got += static_cast<size_t>(n);
  }
}

}  // namespace

double tcp_loopback_gbps(size_t bytes, int repeats) {
  std::vector<char> source(bytes, 1), sink(bytes, 2);
  Fd listener(::socket(AF_INET, SOCK_STREAM, 0));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  check(::bind(listener.get(), reinterpret_cast<sockaddr*>(&address), sizeof address) == 0, "bind");
  check(::getsockname(listener.get(), reinterpret_cast<sockaddr*>(&address), &length) == 0,
        "getsockname");
  check(::listen(listener.get(), 1) == 0, "listen");

  double seconds = median_seconds(1, repeats, [&] {
    std::thread receiver(receive_all, listener.get(), sink.data(), bytes);
    {
      Fd conn(::socket(AF_INET, SOCK_STREAM, 0));
      check(::connect(conn.get(), reinterpret_cast<sockaddr*>(&address), sizeof address) == 0,
            "connect");
      for (size_t sent = 0; sent < bytes;) {
        ssize_t n = ::send(conn.get(), source.data() + sent, std::min(kCallBytes, bytes - sent),
                           MSG_NOSIGNAL);
        check(n > 0, "send");
        sent += static_cast<size_t>(n);
      }
    }
    receiver.join();
  });
  if (sink[bytes - 1] != 1) throw std::runtime_error("socket peer: the bytes did not arrive");
  return static_cast<double>(bytes) / seconds / 1e9;
}

}  // namespace tensord::bench
