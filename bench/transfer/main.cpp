// bench/transfer: moving 256 MiB between a client and the daemon. Starts its own daemon (the
// real binary) listening on a unix socket and on TCP loopback, and prints four figures as JSON
// lines (bench/common/figure.h), each against a memcpy of the same size in this process:
//   upload_256MiB_local    GB/s from a filled HostBuffer to a daemon tensor over the unix
//                          socket (shared memory: the daemon copies once)
//   download_256MiB_local  GB/s from a daemon tensor into a new HostBuffer (fetch_buffer)
//   to_vector_256MiB_local GB/s from a daemon tensor into a std::vector (Tensor::to_vector, the
//                          C++ client's sync point) over the unix socket; also against
//                          memcpy_fresh (to_vector_256MiB_local_vs_fresh): the vector is new
//                          memory, so the page faults of its first touch are its floor
//   upload_256MiB_tcp      the same over TCP loopback (chunked calls, four in flight)
//   download_256MiB_tcp
//   memcpy_fresh_256MiB    GB/s of a memcpy into newly allocated memory (the page faults every
//                          new tensor or buffer pays on first touch) vs the memcpy peer: the
//                          floor under the transfers above, which all land in new memory
//   tcp_socket_256MiB      GB/s of a plain TCP loopback socket (socket_peer.h) vs memcpy: the
//                          ceiling of any protocol over TCP on this machine
//   upload_256MiB_tcp_vs_socket, download_256MiB_tcp_vs_socket
//                          the TCP transfers against that socket: what the protocol costs
// A HostBuffer is what a client writing its data for the daemon fills; NumPy arrays are copied
// into one first (the Python client's asarray), which these figures do not include.
#include <sys/mman.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/common/figure.h"
#include "bench/transfer/socket_peer.h"
#include "tensord/client.h"
#include "tensord/host_buffer.h"
#include "tests/support/daemon/daemon_process.h"

namespace {

using tensord::bench::median_seconds;
using tensord::bench::print_figure;

constexpr size_t kBytes = size_t{256} << 20;
constexpr int kRepeats = 7;

double gbps(double seconds) {
  return static_cast<double>(kBytes) / seconds / 1e9;
}

// The peer at its best: touched memory (no page faults in the timing), on transparent huge
// pages where the kernel gives them (fewer TLB misses than the 4 KiB pages of a vector).
struct HugeBlock {
  HugeBlock() : p(static_cast<char*>(std::aligned_alloc(kHuge, kBytes))) {
    if (p == nullptr) throw std::runtime_error("cannot allocate the memcpy peer's memory");
    madvise(p, kBytes, MADV_HUGEPAGE);
    std::memset(p, 1, kBytes);
  }
  ~HugeBlock() { std::free(p); }
  static constexpr size_t kHuge = size_t{2} << 20;
  char* p;
};

double memcpy_gbps() {
  HugeBlock a, b;
  return gbps(median_seconds(1, kRepeats, [&] {
    std::memcpy(b.p, a.p, kBytes);
    asm volatile("" : : "r"(b.p) : "memory");
  }));
}

double memcpy_fresh_gbps() {
  std::vector<char> a(kBytes, 1);
  return gbps(median_seconds(1, kRepeats, [&] {
    std::unique_ptr<char[]> b(new char[kBytes]);
    std::memcpy(b.get(), a.data(), kBytes);
    asm volatile("" : : "r"(b.get()) : "memory");
  }));
}

struct Figures {
  double upload;
  double download;
  double to_vector;
};

Figures measure(const std::string& address) {
  auto s = tensord::connect(address);
  auto buffer = std::make_shared<tensord::HostBuffer>(kBytes);
  std::memset(buffer->data(), 3, kBytes);
  const tensord::ir::Shape shape{static_cast<int64_t>(kBytes)};
  Figures f{};
  f.upload = gbps(median_seconds(1, kRepeats, [&] {
    auto t = s.from_buffer(tensord::ir::DType::UInt8, shape, buffer);
    s.sync({t});
  }));
  auto t = s.from_buffer(tensord::ir::DType::UInt8, shape, buffer);
  s.sync({t});
  f.download = gbps(median_seconds(1, kRepeats, [&] {
    auto out = tensord::fetch_buffer(t);
    if (std::to_integer<int>(out->data()[kBytes - 1]) != 3) throw std::runtime_error("bad bytes");
  }));
  f.to_vector = gbps(median_seconds(1, kRepeats, [&] {
    std::vector<uint8_t> out = t.to_vector<uint8_t>();
    if (out.size() != kBytes || out.back() != 3) throw std::runtime_error("bad bytes");
  }));
  return f;
}

// "tcp:127.0.0.1:PORT" from the daemon's "listening on" lines.
std::string tcp_address(const tensord::test::DaemonProcess& daemon) {
  std::string out = daemon.output();
  auto at = out.find("listening on tcp:");
  if (at == std::string::npos) throw std::runtime_error("the daemon did not listen on TCP");
  at += std::strlen("listening on ");
  return out.substr(at, out.find('\n', at) - at);
}

}  // namespace

int main(int argc, char**) {
  if (argc > 1) {
    std::fprintf(stderr, "usage: tensord-bench-transfer\n");
    return 2;
  }
  try {
    tensord::test::DaemonProcess daemon(
        tensord::test::DaemonOptions::with_args({"--listen", "tcp:127.0.0.1:0"}));
    double peer = memcpy_gbps();
    Figures local = measure(daemon.address());
    print_figure("upload_256MiB_local", local.upload, "GB/s", "memcpy", peer);
    print_figure("download_256MiB_local", local.download, "GB/s", "memcpy", peer);
    print_figure("to_vector_256MiB_local", local.to_vector, "GB/s", "memcpy", peer);
    Figures tcp = measure(tcp_address(daemon));
    print_figure("upload_256MiB_tcp", tcp.upload, "GB/s", "memcpy", peer);
    print_figure("download_256MiB_tcp", tcp.download, "GB/s", "memcpy", peer);
    const double fresh = memcpy_fresh_gbps();
    print_figure("memcpy_fresh_256MiB", fresh, "GB/s", "memcpy", peer);
    print_figure("to_vector_256MiB_local_vs_fresh", local.to_vector, "GB/s", "memcpy_fresh", fresh);
    double socket = tensord::bench::tcp_loopback_gbps(kBytes, kRepeats);
    print_figure("tcp_socket_256MiB", socket, "GB/s", "memcpy", peer);
    print_figure("upload_256MiB_tcp_vs_socket", tcp.upload, "GB/s", "tcp_socket", socket);
    print_figure("download_256MiB_tcp_vs_socket", tcp.download, "GB/s", "tcp_socket", socket);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tensord-bench-transfer: %s\n", e.what());
    return 1;
  }
  return 0;
}
