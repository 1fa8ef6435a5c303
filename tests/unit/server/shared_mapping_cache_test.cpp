// The session's cache of client memory mappings: the same memfd is mapped once, a writable
// request replaces a read-only mapping, the cache stays small, and it still checks new memory.
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <vector>

#include "engine/ir/error.h"
#include "server/shared_mapping.h"

using tensord::server::SharedMappingCache;

namespace {

struct Memfd {
  explicit Memfd(size_t size, bool sealed = true)
      : fd(memfd_create("test", MFD_CLOEXEC | MFD_ALLOW_SEALING)) {
    REQUIRE(fd >= 0);
    REQUIRE(ftruncate(fd, static_cast<off_t>(size)) == 0);
    if (sealed) REQUIRE(fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW) == 0);
  }
  ~Memfd() { close(fd); }
  int fd;
};

}  // namespace

TEST_CASE("the same memory is mapped once", "[server]") {
  SharedMappingCache cache;
  Memfd a(1 << 20);
  auto first = cache.map(a.fd, 1 << 20, false);
  CHECK(cache.map(a.fd, 1 << 20, false) == first);
  // A dup'ed descriptor names the same memory.
  int dup_fd = dup(a.fd);
  CHECK(cache.map(dup_fd, 1 << 20, false) == first);
  close(dup_fd);
  // Writable needs a new mapping, which then serves read-only requests too.
  auto writable = cache.map(a.fd, 1 << 20, true);
  CHECK(writable != first);
  writable->data()[5] = 42;
  auto again = cache.map(a.fd, 1 << 20, false);
  CHECK(again == writable);
  CHECK(first->data()[5] == 42);  // MAP_SHARED: both see the same bytes
  // Another length is another mapping.
  CHECK(cache.map(a.fd, 4096, false) != writable);
}

TEST_CASE("the cache keeps at most kMaxEntries mappings", "[server]") {
  SharedMappingCache cache;
  std::vector<std::unique_ptr<Memfd>> fds;
  std::vector<std::shared_ptr<tensord::server::SharedMapping>> first;
  for (size_t i = 0; i < SharedMappingCache::kMaxEntries + 2; ++i) {
    fds.push_back(std::make_unique<Memfd>(4096));
    first.push_back(cache.map(fds.back()->fd, 4096, false));
  }
  CHECK(cache.map(fds.back()->fd, 4096, false) == first.back());
  CHECK(cache.map(fds.front()->fd, 4096, false) != first.front());  // evicted, mapped anew
}

TEST_CASE("unsealed or short memory is refused even after a hit on other memory", "[server]") {
  SharedMappingCache cache;
  Memfd good(8192), unsealed(8192, false), small(4096);
  (void)cache.map(good.fd, 8192, false);
  CHECK_THROWS_AS(cache.map(unsealed.fd, 8192, false), tensord::Error);
  CHECK_THROWS_AS(cache.map(small.fd, 8192, false), tensord::Error);
}
