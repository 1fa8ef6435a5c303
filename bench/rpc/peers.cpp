#include "bench/rpc/peers.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <oneapi/dnnl/dnnl.hpp>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "bench/common/figure.h"

namespace tensord::bench {
namespace {

void check(bool ok, const char* what) {
  if (!ok) throw std::runtime_error(std::string(what) + ": " + std::strerror(errno));
}

void read_full(int fd, char* p, size_t n) {
  while (n > 0) {
    ssize_t r = ::read(fd, p, n);
    check(r > 0, "read");
    p += r;
    n -= static_cast<size_t>(r);
  }
}

void write_full(int fd, const char* p, size_t n) {
  while (n > 0) {
    ssize_t r = ::write(fd, p, n);
    check(r > 0, "write");
    p += r;
    n -= static_cast<size_t>(r);
  }
}

}  // namespace

double unix_pingpong_median_us(int iterations, int bytes) {
  std::string path = "/tmp/tensord-bench-pingpong-" + std::to_string(::getpid()) + ".sock";
  ::unlink(path.c_str());
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", path.c_str());

  int listener = ::socket(AF_UNIX, SOCK_STREAM, 0);
  check(listener >= 0, "socket");
  check(::bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0, "bind");
  check(::listen(listener, 1) == 0, "listen");

  std::thread echo([&] {
    int fd = ::accept(listener, nullptr, nullptr);
    std::vector<char> buf(bytes);
    for (int i = 0; i < iterations + 100; ++i) {
      read_full(fd, buf.data(), buf.size());
      write_full(fd, buf.data(), buf.size());
    }
    ::close(fd);
  });

  int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  check(fd >= 0, "socket");
  check(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0, "connect");
  std::vector<char> buf(bytes, 'x');
  double seconds = median_seconds(100, iterations, [&] {
    write_full(fd, buf.data(), buf.size());
    read_full(fd, buf.data(), buf.size());
  });
  echo.join();
  ::close(fd);
  ::close(listener);
  ::unlink(path.c_str());
  return seconds * 1e6;
}

double onednn_matmul_gflops(int n, int repeats) {
  using namespace dnnl;
  engine eng(engine::kind::cpu, 0);
  stream strm(eng);
  memory::dims dims{n, n};
  memory::desc md(dims, memory::data_type::f32, memory::format_tag::ab);
  std::vector<float> a(size_t(n) * n, 0.5f), b(size_t(n) * n, 0.25f), c(size_t(n) * n);
  memory ma(md, eng, a.data()), mb(md, eng, b.data()), mc(md, eng, c.data());
  matmul::primitive_desc pd(matmul::desc(md, md, md), eng);
  matmul prim(pd);
  double seconds = median_seconds(2, repeats, [&] {
    prim.execute(strm, {{DNNL_ARG_SRC, ma}, {DNNL_ARG_WEIGHTS, mb}, {DNNL_ARG_DST, mc}});
    strm.wait();
  });
  return 2.0 * n * n * double(n) / seconds / 1e9;
}

}  // namespace tensord::bench
