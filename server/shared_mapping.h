// A client's shared memory (Session.uploadShared, Tensor.readShared) mapped into the daemon.
// The memory belongs to an untrusted process: the daemon maps only the tensor's length after
// checking that the memfd holds that many bytes and is sealed against shrinking, so the
// client cannot truncate it under the mapping (which would turn the copy into a SIGBUS).
#pragma once

#include <kj/async.h>

#include <cstdint>
#include <list>
#include <memory>
#include <mutex>

#include "engine/exec/backend.h"
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

  // Page-locks the mapping for `backend`'s DMA on the first call (Backend::pin_host_memory), so
  // that this and later transfers through the cached mapping skip the staging copy. On the
  // device's worker thread; a refusal is remembered and transfers stage.
  void pin_for(engine::Backend& backend);

 private:
  uint8_t* data_ = nullptr;
  uint64_t length_ = 0;
  bool writable_ = false;
  std::once_flag pin_once_;
  std::shared_ptr<void> pinned_;  // released before the unmap
};

// A session's recent mappings, by the memfd's inode. Clients reuse their transfer buffers
// (client/cpp/src/host_buffer_pool.h); mapping 256 MiB with MAP_POPULATE and unmapping it
// again cost as much as the copy itself (bench/transfer), so the same memory is mapped once.
// A cached mapping keeps the client's pages alive after the client let go of them, so the
// cache is small (kMaxEntries, kMaxBytes) and goes with the session.
class SharedMappingCache {
 public:
  static constexpr size_t kMaxEntries = 8;
  static constexpr uint64_t kMaxBytes = uint64_t{1} << 30;

  // A mapping of the first `length` bytes of `fd` (checked as SharedMapping does).
  std::shared_ptr<SharedMapping> map(int fd, uint64_t length, bool writable);

 private:
  struct Entry {
    uint64_t device, inode, length;
    bool writable;
    std::shared_ptr<SharedMapping> mapping;
  };
  std::mutex mu_;
  std::list<Entry> entries_;  // most recent first
};

// Maps the first `length` bytes of `memory`'s fd through `cache`. Fails with `unsupported`
// when no fd came with the capability (TCP, or a peer without fd passing) and `invalidGraph`
// when the memory is too small or not sealed.
kj::Promise<std::shared_ptr<SharedMapping>> map_shared(::SharedMemory::Client memory,
                                                       uint64_t length, bool writable,
                                                       std::shared_ptr<SharedMappingCache> cache);

}  // namespace tensord::server
