// What a profile is made of: flat, fixed-size records. The daemon's tracer and memory ledger
// emit them, the compact codec streams them, and exports, summaries and advice read them. Some
// kinds (kernels, memcpys, fusion breaks) only a GPU backend or the fusion pass emits; they are
// defined here so the readers (advice in particular) work on them before those emitters exist.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace tensord::profiler {

enum class RecordKind : uint8_t {
  Span = 1,     // a stage of a request on the host (see Stage)
  Alloc,        // a block was allocated; `value` = live bytes of the device after it
  Free,         // a block was freed (`id` as in its Alloc)
  Oom,          // an allocation failed: `bytes` requested, `value` live, free/largest below
  Kernel,       // GPU: one kernel execution (CUPTI or CUDA events); `id` = launching step
  Memcpy,       // GPU: a copy engine transfer; `stage` = MemcpyKind, `hash` = content hash
  FusionBreak,  // the fusion pass could not fuse across op `name` (at file:line)
  // An allocator obtained a segment from the system or the device (a cudaMalloc, a cached host
  // block): `address`, `bytes`, `stream`; `value` = the device's reserved bytes after it. A
  // profile that starts while segments exist gets one at its start for each (flag kExisting).
  SegmentAlloc,
  SegmentFree,  // a segment went back to the system or the device; `value` = reserved after
  // The block's owner let it go (`id` as in its Alloc). On the host, and for a CUDA block no
  // other stream used, the Free follows at once; a CUDA block used by other streams
  // (record_stream) stays allocated, "active_pending_free" as torch calls it, until the events
  // recorded on those streams complete, when its Free ("free completed") comes. The books
  // (live, allocated) change with the Free only, as torch's do. Sent only to clients that ask
  // for it (ProfileOptions::free_requested, protocol 1.4): older decoders refuse unknown kinds.
  FreeRequested,
};

enum class Stage : uint8_t {
  Request = 0,  // one Session.run, from its arrival to its reply
  Receive,      // wire graph -> IR
  Validate,
  PlanLookup,  // canonical form and plan cache; flags has kCacheHit, kStandIn
  PlanBuild,   // decompose, simplify, fuse, plan (a cache miss)
  QueueWait,   // queued behind other work of the device
  Execute,     // the whole plan; `value` = steps; `id` = CaptureNote (reduce-overhead mode)
  Step,        // one plan step; `name` = op, file:line = the user's line, `id` = step index,
               // `bytes` = what it reads and writes (its input and output tensors)
  Upload,      // host bytes -> device (inline inputs, uploads); `hash` = content hash
  Fetch,       // device -> host bytes (inline results, Tensor.read)
  kCount
};

enum class MemoryCategory : uint8_t {
  Tensor = 0,  // tensor storage: plan slots and uploaded tensors
  Staging,     // host staging of uploads and fetches
  Scratch,     // kernel scratch
  Workspace,   // library workspaces (cuBLASLt, cuDNN)
  GraphPool,   // CUDA graph private pools
  kCount
};

enum class MemcpyKind : uint8_t { HostToDevice = 0, DeviceToHost, DeviceToDevice };

// Why a run in reduce-overhead mode on a device that records graphs was not a replay: the
// Execute span's `id` (a step's index elsewhere; the flags byte has no bit left). The cuda_graph
// rule stays silent on plans the engine declined or could not capture: capturing is not the
// user's missing step there.
enum class CaptureNote : uint8_t {
  None = 0,       // not reduce-overhead, a replay (kGraphCaptured), or a first run (recorded next)
  TooLarge = 1,   // declined: copying its inputs and outputs in and out of the graph would cost
                  // more than the launches saved; the span's `bytes` = those copies per run
  Unusable = 2,   // recorded, but the recording cannot be replayed (a step needs the host)
  NoCapture = 3,  // the backend records no graphs
};

// Bits of Record::flags.
inline constexpr uint8_t kOnGpu = 1;           // ran on a GPU
inline constexpr uint8_t kGraphCaptured = 2;   // Execute: replayed from a captured CUDA graph
inline constexpr uint8_t kF32Highest = 4;      // Step/Kernel: float32 matmul at "highest" precision
inline constexpr uint8_t kCacheHit = 8;        // PlanLookup: the plan came from the cache
inline constexpr uint8_t kExisting = 16;       // SegmentAlloc: there before the profile started
                                               // (Alloc: a device-owned block, or a block of
                                               // the session held when the profile started:
                                               // not an allocation made during the profile)
inline constexpr uint8_t kPendingFree = 32;    // Alloc in a snapshot: its free was requested, not
                                               // completed (torch's "active_pending_free")
inline constexpr uint8_t kDeviceOwned = 64;    // Alloc/Free: a block no session owns (library
                                               // workspaces, graph pools), sent to every profile
inline constexpr uint8_t kDeferredFree = 128;  // FreeRequested/Free: the free waited on other
                                               // streams (completed later than requested)
// PlanLookup/PlanBuild (the bit is Execute's kGraphCaptured elsewhere): the plan is an unfused
// stand-in whose fused kernels compile in the background (engine/exec/engine_background.cpp).
inline constexpr uint8_t kStandIn = 2;

// Threads on the timeline.
inline constexpr uint32_t kEventLoopThread = 1;
inline constexpr uint32_t kWorkerThread = 2;
inline constexpr uint32_t kGpuStreamThread = 16;  // + stream number

// One event. Strings (op, kernel and file names) are ids into the profile's string table; 0 is
// the empty string. Times are nanoseconds since the profile started.
struct Record {
  RecordKind kind = RecordKind::Span;
  uint8_t stage = 0;  // Stage (spans), MemoryCategory (memory records), MemcpyKind (memcpys)
  uint8_t flags = 0;
  uint32_t thread = 0;
  uint32_t name = 0;
  uint32_t file = 0;
  uint32_t line = 0;
  uint64_t request = 0;
  uint64_t id = 0;    // step index (spans, kernels), block id (memory)
  uint64_t hash = 0;  // plan hash (spans), content hash (uploads, memcpys)
  int64_t start_ns = 0;
  int64_t dur_ns = 0;
  uint64_t bytes = 0;         // block size, bytes moved
  uint64_t value = 0;         // live bytes after a memory event; steps of an Execute span
  uint64_t free_bytes = 0;    // Oom: free memory of the device
  uint64_t largest_free = 0;  // Oom: the largest free block
  uint64_t session = 0;       // memory records and Oom: the session that owns the block
  uint64_t address = 0;       // Alloc and segment records: the address (0: unknown)
  uint64_t stream = 0;        // segment and free records: the allocator's stream (0: host/unknown)
  // Kernel launch geometry (Kernel records only).
  uint32_t grid[3] = {0, 0, 0};
  uint32_t block[3] = {0, 0, 0};
  uint32_t registers = 0;
  uint32_t static_smem = 0;
  uint32_t dynamic_smem = 0;
  uint32_t occupancy_permille = 0;  // estimated occupancy, 0..1000

  friend bool operator==(const Record&, const Record&) = default;
};

std::string_view stage_name(Stage s);
// A 64-bit hash of bytes, to recognise the same data transferred again.
uint64_t content_hash(const void* data, size_t n);
std::string_view category_name(MemoryCategory c);
// Where a record was made, as errors, reports and the session's holdings name it:
// "fit.py:12 (matmul)" ("<unknown>:0" without a file, no parentheses without an op).
std::string source_site(std::string_view file, uint32_t line, std::string_view op);

}  // namespace tensord::profiler
