// Session.uploadShared and Tensor.readShared against the real daemon, with memfds made here:
// the daemon copies through a sealed memfd of the right size, and refuses memory that is too
// small, unsealed or absent (TCP), with its error code, then keeps serving.
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <capnp/rpc-twoparty.h>
#include <kj/async-io.h>
#include <catch2/catch.hpp>

#include <cstring>
#include <string>
#include <vector>

#include "protocol/wire_error.h"
#include "tests/integration/server/raw_client.h"
#include "tests/support/daemon/daemon_process.h"

namespace tensord::test {
namespace {

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wnon-virtual-dtor"  // kj::heap disposes of the exact type
class Memory final : public ::SharedMemory::Server {
 public:
  explicit Memory(int fd) : fd_(fd) {}
  kj::Maybe<int> getFd() override { return fd_; }

 private:
  int fd_;
};
#pragma GCC diagnostic pop

// A memfd of `size` bytes holding `fill`, sealed against shrinking if `sealed`.
int make_memfd(size_t size, uint8_t fill, bool sealed) {
  int fd = memfd_create("test", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  REQUIRE(fd >= 0);
  REQUIRE(ftruncate(fd, static_cast<off_t>(size)) == 0);
  std::vector<uint8_t> bytes(size, fill);
  REQUIRE(pwrite(fd, bytes.data(), size, 0) == static_cast<ssize_t>(size));
  if (sealed) REQUIRE(fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK) == 0);
  return fd;
}

// A connection over the unix socket that passes file descriptors.
struct FdClient {
  explicit FdClient(const std::string& address)
      : io(kj::setupAsyncIo()),
        stream(io.provider->getNetwork()
                   .parseAddress(address)
                   .wait(io.waitScope)
                   ->connect()
                   .wait(io.waitScope)),
        rpc(kj::downcast<kj::AsyncCapabilityStream>(*stream), 1) {
    auto req = rpc.bootstrap().castAs<::Daemon>().helloRequest();
    req.initClientVersion().setMajor(::PROTOCOL_MAJOR);
    req.setSessionName("shared-memory-test");
    session = req.send().wait(io.waitScope).getSession();
  }

  kj::AsyncIoContext io;
  kj::Own<kj::AsyncIoStream> stream;
  capnp::TwoPartyClient rpc;
  ::Session::Client session = nullptr;
};

auto upload_request(::Session::Client& session, int64_t n, int fd) {
  auto req = session.uploadSharedRequest();
  req.setDtype("uint8");
  req.initShape(1).set(0, n);
  req.setMemory(kj::heap<Memory>(fd));
  return req;
}

ErrorCode code_of(kj::Promise<void> p, kj::WaitScope& ws) {
  try {
    p.wait(ws);
  } catch (const kj::Exception& e) {
    return protocol::from_kj_exception(e).code();
  }
  FAIL("the request succeeded");
  return ErrorCode::Internal;
}

TEST_CASE("a sealed memfd goes up and comes back through shared memory") {
  DaemonProcess daemon;
  FdClient c(daemon.address());
  const size_t n = (5 << 20) + 3;
  int in = make_memfd(n, 42, true);
  auto tensor = upload_request(c.session, n, in).send().wait(c.io.waitScope).getTensor();

  int out = make_memfd(n, 0, true);
  auto read = tensor.readSharedRequest();
  read.setMemory(kj::heap<Memory>(out));
  read.send().wait(c.io.waitScope);
  void* p = mmap(nullptr, n, PROT_READ, MAP_SHARED, out, 0);
  REQUIRE(p != MAP_FAILED);
  auto* bytes = static_cast<const uint8_t*>(p);
  CHECK(bytes[0] == 42);
  CHECK(bytes[n - 1] == 42);
  CHECK(std::count(bytes, bytes + n, 42) == static_cast<std::ptrdiff_t>(n));
  munmap(p, n);
  close(in);
  close(out);
}

TEST_CASE("bad shared memory gets its error code and the daemon keeps serving") {
  DaemonProcess daemon;
  FdClient c(daemon.address());
  auto& ws = c.io.waitScope;
  int small = make_memfd(100, 1, true);
  int unsealed = make_memfd(1000, 1, false);
  int good = make_memfd(1000, 1, true);

  CHECK(code_of(upload_request(c.session, 1000, small).send().ignoreResult(), ws) ==
        ErrorCode::InvalidGraph);
  CHECK(code_of(upload_request(c.session, 1000, unsealed).send().ignoreResult(), ws) ==
        ErrorCode::InvalidGraph);
  // A readShared into memory smaller than the tensor writes nothing.
  auto tensor = upload_request(c.session, 1000, good).send().wait(ws).getTensor();
  auto read = tensor.readSharedRequest();
  read.setMemory(kj::heap<Memory>(small));
  CHECK(code_of(read.send().ignoreResult(), ws) == ErrorCode::InvalidGraph);
  // Memory sealed against writes cannot receive a download.
  int write_sealed = make_memfd(1000, 1, true);
  REQUIRE(fcntl(write_sealed, F_ADD_SEALS, F_SEAL_WRITE) == 0);
  auto read_sealed = tensor.readSharedRequest();
  read_sealed.setMemory(kj::heap<Memory>(write_sealed));
  CHECK(code_of(read_sealed.send().ignoreResult(), ws) == ErrorCode::InvalidGraph);
  close(write_sealed);
  // Sizes past --max-tensor-bytes are refused before anything is mapped.
  CHECK(code_of(upload_request(c.session, int64_t{1} << 60, good).send().ignoreResult(), ws) ==
        ErrorCode::OutOfMemory);
  // Still serving: the good upload reads back.
  auto again = upload_request(c.session, 1000, good).send().wait(ws).getTensor();
  auto info = again.infoRequest().send().wait(ws);
  CHECK(info.getShape()[0] == 1000);
  close(small);
  close(unsealed);
  close(good);
}

TEST_CASE("without fd passing the daemon answers unsupported") {
  DaemonProcess daemon;
  RawClient raw(daemon.address());  // EzRpc: a connection without fd passing
  auto session = raw.hello();
  int fd = make_memfd(16, 1, true);
  CHECK(code_of(upload_request(session, 16, fd).send().ignoreResult(), raw.ws()) ==
        ErrorCode::Unsupported);
  close(fd);
}

}  // namespace
}  // namespace tensord::test
