#include "server/shared_mapping.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "engine/ir/error.h"
#include "server/exceptions.h"

namespace tensord::server {

SharedMapping::SharedMapping(int fd, uint64_t length, bool writable)
    : length_(length), writable_(writable) {
  struct stat st {};
  if (fstat(fd, &st) != 0) {
    throw Error(ErrorCode::InvalidGraph,
                std::string("cannot stat the shared memory: ") + std::strerror(errno));
  }
  if (!S_ISREG(st.st_mode)) {
    throw Error(ErrorCode::InvalidGraph, "the shared memory is not a memfd or regular file");
  }
  int seals = fcntl(fd, F_GET_SEALS);
  if (seals < 0 || !(seals & F_SEAL_SHRINK)) {
    throw Error(ErrorCode::InvalidGraph,
                "the shared memory must be a memfd sealed with F_SEAL_SHRINK");
  }
  if (static_cast<uint64_t>(st.st_size) < length) {
    throw Error(ErrorCode::InvalidGraph, "the shared memory holds " + std::to_string(st.st_size) +
                                             " bytes, the tensor needs " + std::to_string(length));
  }
  if (length == 0) return;
  int prot = PROT_READ | (writable ? PROT_WRITE : 0);
  // MAP_POPULATE faults the pages in with one call instead of one fault per page.
  void* p = mmap(nullptr, length, prot, MAP_SHARED | MAP_POPULATE, fd, 0);
  if (p == MAP_FAILED) {
    // EPERM/EACCES: the client sealed the memory against writes, or passed a read-only fd.
    throw Error(errno == ENOMEM ? ErrorCode::OutOfMemory : ErrorCode::InvalidGraph,
                std::string("cannot map the shared memory: ") + std::strerror(errno));
  }
  data_ = static_cast<uint8_t*>(p);
}

SharedMapping::~SharedMapping() {
  pinned_.reset();  // unlocked while still mapped
  if (data_ != nullptr) munmap(data_, length_);
}

void SharedMapping::pin_for(engine::Backend& backend) {
  if (data_ == nullptr) return;
  std::call_once(pin_once_, [&] { pinned_ = backend.pin_host_memory(data_, length_, !writable_); });
}

std::shared_ptr<SharedMapping> SharedMappingCache::map(int fd, uint64_t length, bool writable) {
  struct stat st {};
  if (length == 0 || fstat(fd, &st) != 0) {
    return std::make_shared<SharedMapping>(fd, length, writable);  // reports the failure
  }
  const auto device = static_cast<uint64_t>(st.st_dev), inode = static_cast<uint64_t>(st.st_ino);
  std::lock_guard lock(mu_);
  for (auto it = entries_.begin(); it != entries_.end(); ++it) {
    // Seals never come off and sealed memory never shrinks, so an entry's checks still hold.
    if (it->device == device && it->inode == inode && it->length == length &&
        (it->writable || !writable)) {
      entries_.splice(entries_.begin(), entries_, it);
      return entries_.front().mapping;
    }
  }
  auto mapping = std::make_shared<SharedMapping>(fd, length, writable);
  if (length > kMaxBytes) return mapping;
  entries_.push_front(Entry{device, inode, length, writable, mapping});
  uint64_t bytes = 0;
  size_t kept = 0;
  for (auto it = entries_.begin(); it != entries_.end();) {
    if (kept == kMaxEntries || bytes + it->length > kMaxBytes ||
        (it != entries_.begin() && it->device == device && it->inode == inode)) {
      it = entries_.erase(it);  // also a read-only entry this writable one replaces
    } else {
      bytes += it->length;
      ++kept;
      ++it;
    }
  }
  return mapping;
}

kj::Promise<std::shared_ptr<SharedMapping>> map_shared(::SharedMemory::Client memory,
                                                       uint64_t length, bool writable,
                                                       std::shared_ptr<SharedMappingCache> cache) {
  return memory.getFd().then([length, writable, cache](kj::Maybe<int> maybe_fd) {
    return with_wire_errors([&] {
      KJ_IF_MAYBE (fd, maybe_fd) {
        return cache->map(*fd, length, writable);
      }
      throw Error(ErrorCode::Unsupported,
                  "shared memory needs a unix socket connection that passes file descriptors");
    });
  });
}

}  // namespace tensord::server
