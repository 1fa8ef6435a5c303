// Session: one connection to a tensord daemon, and the creation ops.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <source_location>
#include <string>
#include <utility>
#include <vector>

#include "engine/ir/dtype.h"
#include "engine/ir/error.h"
#include "engine/ir/shape.h"
#include "tensord/element.h"
#include "tensord/function.h"
#include "tensord/holding.h"
#include "tensord/host_buffer.h"
#include "tensord/profile.h"
#include "tensord/scalar.h"
#include "tensord/tensor.h"

namespace tensord {

namespace detail {
struct SessionState;
}

class Session;

struct DeviceInfo {
  std::string kind;  // "cpu" or "cuda"
  uint32_t index = 0;
  std::string name;
  uint64_t total_memory = 0;  // bytes
  uint32_t threads = 0;       // CPU worker threads, or CUDA SM count
};

// One statistic of a device's memory, as in PyTorch's torch.cuda.memory_stats(): its value now,
// its highest value, and the totals ever added and removed.
struct MemoryStat {
  int64_t current = 0;
  int64_t peak = 0;
  int64_t allocated = 0;
  int64_t freed = 0;
};

// A GPU's caching allocator (PyTorch's "all" pool). Bytes: allocated (blocks handed out,
// rounded to 512 bytes), reserved (segments held from the device), active, inactive_split
// (free blocks inside split segments), requested (before rounding); then the same as counts.
struct AllocatorMemoryStats {
  MemoryStat allocated_bytes, reserved_bytes, active_bytes, inactive_split_bytes, requested_bytes;
  MemoryStat allocation, segment, active, inactive_split;
  int64_t num_alloc_retries = 0;  // device allocations retried after emptying the cache
  int64_t num_ooms = 0;           // requests that failed with out of memory
  int64_t num_device_alloc = 0;   // segments obtained from the device
  int64_t num_device_free = 0;    // segments given back
};

// The CPU's cache of large freed host blocks.
struct HostCacheMemoryStats {
  uint64_t cached_bytes = 0;
  uint64_t hits = 0;
  uint64_t misses = 0;
  uint64_t evictions = 0;
};

// One device of the daemon (Session::memory_stats). A part the device does not have is empty:
// the CPU has no caching allocator, a GPU no host block cache.
struct DeviceMemoryStats {
  DeviceInfo device;
  bool session_device = false;  // this session's work runs on it
  std::optional<AllocatorMemoryStats> allocator;
  std::optional<HostCacheMemoryStats> host_cache;
};

// The allocator's figures under PyTorch's torch.cuda.memory_stats() key names
// ("allocated_bytes.all.current", ..., "num_alloc_retries", "num_ooms"), in PyTorch's order;
// empty for a device without a caching allocator.
std::vector<std::pair<std::string, int64_t>> torch_memory_stats(const DeviceMemoryStats& stats);

struct ServerInfo {
  uint16_t protocol_major = 0;
  uint16_t protocol_minor = 0;
  std::string daemon_version;
  std::vector<DeviceInfo> devices;
  uint64_t max_chunk_bytes = 0;
  uint64_t max_tensor_bytes = 0;
};

// One compiled-kernel cache of the daemon (SessionStats::kernel_caches).
struct KernelCacheStats {
  std::string target;  // "host" (the CPU backend's C++ kernels) or a device, e.g. "cuda:0"
  uint64_t memory_hits = 0;
  uint64_t disk_hits = 0;
  uint64_t misses = 0;  // kernels compiled
  uint64_t compiles = 0;
  uint64_t compile_ns = 0;
};

struct SessionStats {
  uint64_t live_tensors = 0;  // this session's tensors the daemon holds
  uint64_t live_bytes = 0;
  uint64_t runs = 0;                 // run calls completed: one per sync point that had work to do
  uint64_t daemon_live_tensors = 0;  // all sessions together
  uint64_t daemon_live_bytes = 0;
  // The daemon's compiled-kernel cache (fusion) and this session's compile mode.
  uint64_t kernel_memory_hits = 0;
  uint64_t kernel_disk_hits = 0;
  uint64_t kernel_misses = 0;  // kernels compiled
  uint64_t kernel_compiles = 0;
  uint64_t kernel_compile_ns = 0;
  std::string compile_mode;
  std::string float32_matmul_precision;  // "highest", "high" or "medium"
  // Every kernel cache: "host" (the kernel_* figures above) and each device's own (protocol
  // 1.3; empty from an older daemon).
  std::vector<KernelCacheStats> kernel_caches;
  // What holds live_bytes, largest first, at most 3 (protocol 1.7; empty from an older daemon).
  std::vector<Holding> holdings;
};

struct ConnectOptions {
  std::string token;         // must match the daemon's --token, if it has one
  std::string session_name;  // shown in the daemon's logs and dashboard
  // Where the session comes from, as the daemon's log and dashboard show it; empty: this
  // process, "user@host pid N" (default_client_description()).
  std::string client = {};
};

// "user@host pid N" for this process: what a session says of where it comes from.
std::string default_client_description();

// $TENSORD_ADDRESS, else unix:$XDG_RUNTIME_DIR/tensord.sock, else unix:/tmp/tensord-$UID.sock.
std::string default_address();

// Connects to "unix:PATH" or "tcp:HOST:PORT" and opens a session. Throws tensord::Error:
// Cancelled when the daemon cannot be reached, Version or Unauthenticated as the daemon says,
// Unsupported for an address of another form or a thread that already has a session.
Session connect(const std::string& address = default_address(), const ConnectOptions& options = {});

// A handle to one session with a daemon; copies share it. The session ends (and the daemon
// frees its tensors) when the last Session copy and the last Tensor recorded on it are gone.
//
// Threads: a Session runs a KJ event loop on the thread that connected, and is used from that
// thread only, with its tensors. A thread has at most one Session at a time; for parallel
// work open one Session per thread. A Session or Tensor whose last copy goes on another
// thread is kept, connection and all, until the process exits (its event loop cannot run
// there); stderr says so once.
class Session {
 public:
  using Loc = std::source_location;

  const ServerInfo& info() const;
  SessionStats stats();

  // Starts profiling this session (tensord/profile.h); the profile stops when the returned
  // object goes. One profile per session at a time.
  Profile profile(const ProfileOptions& options = {});
  // "eager" (no fusion), "default", "reduce-overhead" or "max-autotune" for the runs that
  // follow (tensord/explain.h shows the effect). Unknown names: tensord::Error(InvalidGraph).
  void set_compile_mode(const std::string& mode);
  // torch.set_float32_matmul_precision for this session's runs sent from now on: "highest"
  // (float32), "high" (GPU matmuls may use TF32) or "medium" (may use bfloat16). The CPU always
  // computes in float32. Unknown names: tensord::Error(InvalidGraph).
  void set_float32_matmul_precision(const std::string& precision);
  std::string float32_matmul_precision();  // the session's, from the daemon

  // The memory figures of every device the daemon runs, in the order of info().devices; read
  // at once, without waiting for this session's queued work.
  std::vector<DeviceMemoryStats> memory_stats();

  // `body` kept on the daemon and called with new arguments (tensord/function.h). Needs a
  // daemon with protocol 1.6; tensord::Error(Unsupported) at the first call otherwise.
  Function function(Function::Body body);

  // Makes every tensor given materialized on the daemon, in one `run` for all of them.
  void sync(const std::vector<Tensor>& tensors, Loc loc = Loc::current());

  // Host data: `values` in row-major order. Sent at the next sync point that needs it (inline
  // with the graph when small, as a chunked upload otherwise).
  template <Element T>
  Tensor from_vector(const std::vector<T>& values, const ir::Shape& shape,
                     Loc loc = Loc::current()) {
    return from_bytes(dtype_of<T>(), shape, detail::to_bytes(values), loc);
  }
  template <Element T>
  Tensor from_vector(const std::vector<T>& values, Loc loc = Loc::current()) {
    return from_bytes(dtype_of<T>(), {static_cast<int64_t>(values.size())},
                      detail::to_bytes(values), loc);
  }
  // The same from raw row-major bytes; their count must be numel * itemsize(dtype).
  Tensor from_bytes(ir::DType dtype, const ir::Shape& shape, std::vector<std::byte> bytes,
                    Loc loc = Loc::current());
  // The same from a HostBuffer (tensord/host_buffer.h) the caller no longer writes to: sent
  // through shared memory when the daemon is on this host, without another copy here.
  Tensor from_buffer(ir::DType dtype, const ir::Shape& shape,
                     std::shared_ptr<const HostBuffer> buffer, Loc loc = Loc::current());
  // A HostBuffer of `nbytes` to fill for from_buffer: large ones come from this session's
  // pool of buffers released earlier (already touched memory, so filling them costs no page
  // faults). Its contents are unspecified.
  std::shared_ptr<HostBuffer> host_buffer(size_t nbytes);
  // Calls `observer` (on this thread, during sync points) as uploads and downloads larger than
  // one chunk progress; an empty function stops it.
  void on_transfer(TransferObserver observer);

  // `value`'s C++ type gives the dtype (0.5f: float32, 0.5: float64, 1: int32, true: bool).
  Tensor full(const ir::Shape& shape, Scalar value, Loc loc = Loc::current());
  Tensor full(const ir::Shape& shape, Scalar value, ir::DType dtype, Loc loc = Loc::current());
  Tensor zeros(const ir::Shape& shape, ir::DType dtype = ir::DType::Float32,
               Loc loc = Loc::current());
  Tensor ones(const ir::Shape& shape, ir::DType dtype = ir::DType::Float32,
              Loc loc = Loc::current());
  // [0, stop) or [start, stop) by step. Without a dtype: float32 if any bound is a float,
  // else int64.
  Tensor arange(Scalar stop, Loc loc = Loc::current());
  Tensor arange(Scalar start, Scalar stop, Scalar step = 1,
                std::optional<ir::DType> dtype = std::nullopt, Loc loc = Loc::current());
  // n x m (default n x n) with ones on diagonal k.
  Tensor eye(int64_t n, std::optional<int64_t> m = std::nullopt, int64_t k = 0,
             ir::DType dtype = ir::DType::Float32, Loc loc = Loc::current());
  // Counter-based (Philox): the same seed gives the same numbers on every backend.
  Tensor rand(const ir::Shape& shape, uint64_t seed, ir::DType dtype = ir::DType::Float32,
              Loc loc = Loc::current());
  Tensor randn(const ir::Shape& shape, uint64_t seed, ir::DType dtype = ir::DType::Float32,
               Loc loc = Loc::current());

 private:
  friend Session connect(const std::string&, const ConnectOptions&);
  explicit Session(std::shared_ptr<detail::SessionState> state);

  std::shared_ptr<detail::SessionState> state_;
};

}  // namespace tensord
