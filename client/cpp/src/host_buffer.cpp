#include "tensord/host_buffer.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "engine/ir/error.h"

namespace tensord {
namespace {

[[noreturn]] void fail(const std::string& what, size_t nbytes) {
  throw Error(ErrorCode::OutOfMemory, "cannot " + what + " for a host buffer of " +
                                          std::to_string(nbytes) +
                                          " bytes: " + std::strerror(errno));
}

}  // namespace

HostBuffer::HostBuffer(size_t nbytes) : size_(nbytes) {
  fd_ = memfd_create("tensord-host-buffer", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (fd_ < 0) fail("create a memfd", nbytes);
  // The daemon maps this memory: sealed, its length can no longer change under a mapping.
  if (ftruncate(fd_, static_cast<off_t>(nbytes)) != 0 ||
      fcntl(fd_, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0) {
    int saved = errno;
    close(fd_);
    errno = saved;
    fail("size and seal a memfd", nbytes);
  }
  if (nbytes == 0) return;
  void* p = mmap(nullptr, nbytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
  if (p == MAP_FAILED) {
    int saved = errno;
    close(fd_);
    errno = saved;
    fail("map a memfd", nbytes);
  }
  data_ = static_cast<std::byte*>(p);
}

HostBuffer::~HostBuffer() {
  if (data_ != nullptr) munmap(data_, size_);
  if (fd_ >= 0) close(fd_);
}

}  // namespace tensord
