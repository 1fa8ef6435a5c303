// A client's shared memory (Session.uploadShared, Tensor.readShared) mapped into the daemon.
// The memory belongs to an untrusted process: the daemon maps only the tensor's length after
// checking that the memfd holds that many bytes and is sealed against shrinking, so the
// client cannot truncate it under the mapping (which would turn the copy into a SIGBUS).
#pragma once

#include <kj/async.h>

#include <cstdint>
#include <memory>

#include "tensord.capnp.h"

namespace tensord::server {

// Owns one mapping; unmapped when the last reference goes (the copy job may outlive the call).
class SharedMapping {
 public:
  SharedMapping(int fd, uint64_t length, bool writable);  // throws tensord::Error
  ~SharedMapping();
  SharedMapping(const SharedMapping&) = delete;
  SharedMapping& operator=(const SharedMapping&) = delete;

  uint8_t* data() const { return data_; }
  uint64_t size() const { return length_; }

 private:
  uint8_t* data_ = nullptr;
  uint64_t length_ = 0;
};

// Maps the first `length` bytes of `memory`'s fd. Fails with `unsupported` when no fd came
// with the capability (TCP, or a peer without fd passing) and `invalidGraph` when the memory
// is too small or not sealed.
kj::Promise<std::shared_ptr<SharedMapping>> map_shared(::SharedMemory::Client memory,
                                                       uint64_t length, bool writable);

}  // namespace tensord::server
