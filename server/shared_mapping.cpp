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

SharedMapping::SharedMapping(int fd, uint64_t length, bool writable) : length_(length) {
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
  if (data_ != nullptr) munmap(data_, length_);
}

kj::Promise<std::shared_ptr<SharedMapping>> map_shared(::SharedMemory::Client memory,
                                                       uint64_t length, bool writable) {
  return memory.getFd().then([length, writable](kj::Maybe<int> maybe_fd) {
    return with_wire_errors([&] {
      KJ_IF_MAYBE (fd, maybe_fd) {
        return std::make_shared<SharedMapping>(*fd, length, writable);
      }
      throw Error(ErrorCode::Unsupported,
                  "shared memory needs a unix socket connection that passes file descriptors");
    });
  });
}

}  // namespace tensord::server
