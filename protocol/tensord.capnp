# tensord wire protocol, version 1.
#
# A client connects (unix socket or TCP), bootstraps a `Daemon`, and calls `hello` to open a
# `Session`. It records tensor programs locally and sends each pending subgraph as one `Graph`
# to `Session.run`. Results stay on the server as `Tensor` capabilities; bytes move only when
# the client asks (inline in `run`'s reply for small outputs, `Tensor.read` for the rest).
#
# Compatibility: a change that old peers cannot read bumps `protocolMajor`; new optional fields
# bump the minor version. Ordinals are never reused.
#
# Errors. A failed call raises a Cap'n Proto exception whose description starts with
#   [tensord:<code> node=<index> op=<name> at=<file>:<line>] <message>
# where <code> is an `ErrorCode` name in snake case (e.g. shape, invalid_graph) and the node,
# op and at fields appear only when known. Clients parse this prefix back into a structured
# error (protocol/wire_error.h encodes and decodes it). Pipelined calls on a failed result
# fail with the same description.

@0xd0057a9e31298522;

const protocolMajor :UInt16 = 1;
const protocolMinor :UInt16 = 8;

# The largest `Data` any single message carries (upload chunks, reads, inline results).
# Cap'n Proto refuses messages over 64 MiB; chunks stay far below that.
const maxChunkBytes :UInt64 = 4194304;

enum ErrorCode {
  invalidGraph @0;    # structure: dangling input, cycle, wrong arity, unknown op or attribute
  shape @1;           # shapes that do not fit the op
  dtype @2;           # a dtype the op does not accept
  unsupported @3;     # valid, but this daemon or device cannot run it
  outOfMemory @4;     # the device or a configured limit cannot hold a tensor
  quota @5;           # a per-session limit was exceeded
  cancelled @6;       # the session ended or the request was cancelled
  unauthenticated @7; # wrong or missing token
  version @8;         # incompatible protocol versions
  internal @9;        # a bug in the daemon: please report it
}

struct Version {
  major @0 :UInt16;
  minor @1 :UInt16;
}

struct DeviceInfo {
  kind @0 :Text;          # "cpu" or "cuda"
  index @1 :UInt32;       # device number within its kind
  name @2 :Text;          # e.g. "AMD EPYC (2 threads)" or "NVIDIA H100 80GB HBM3"
  totalMemory @3 :UInt64; # bytes
  threads @4 :UInt32;     # CPU worker threads, or CUDA SM count
}

struct ServerInfo {
  version @0 :Version;         # protocol version the daemon speaks
  daemonVersion @1 :Text;      # e.g. "0.1.0"
  devices @2 :List(DeviceInfo);
  maxChunkBytes @3 :UInt64;    # largest Data per message this daemon accepts
  maxTensorBytes @4 :UInt64;   # largest tensor this daemon accepts
}

# The bootstrap capability of a daemon.
interface Daemon {
  # Opens a session. Fails with `version` when the client's major version differs from the
  # daemon's, and `unauthenticated` when the daemon was started with a token and `token`
  # differs. `sessionName` shows up in logs and the dashboard. (protocol 1.5) `client` says
  # where the session comes from, as the client sees itself ("alice@laptop pid 4242"): shown
  # in logs and the dashboard, never checked (the token is what authenticates).
  hello @0 (clientVersion :Version, token :Text, sessionName :Text, client :Text)
        -> (session :Session, server :ServerInfo);
}

# A value as the graph sees it: output `output` of node `node` (an index into Graph.nodes).
struct ValueRef {
  node @0 :UInt32;
  output @1 :UInt32;
}

# A scalar attribute value or a list of integers. Which arm an attribute needs is given by the
# op's schema (engine/ir/op_table.cpp, docs/ops.md); `scalar` attributes take int, float or bool.
struct AttrValue {
  union {
    int @0 :Int64;
    float @1 :Float64;
    bool @2 :Bool;
    ints @3 :List(Int64);
    dtype @4 :Text;      # a dtype name: bool, int8, uint8, int16, int32, int64, float16,
                         # bfloat16, float32, float64, complex64, complex128 (issue 4: pairs
                         # of float32/float64, real part first)
    floats @5 :List(Float64);  # interpolate's scales
  }
}

struct Attr {
  name @0 :Text;         # e.g. "axes", "keepdim", "shape"
  value @1 :AttrValue;
}

struct Node {
  op @0 :Text;                    # an op name from docs/ops.md, e.g. "matmul"
  inputs @1 :List(ValueRef);      # values of earlier nodes only (so a graph has no cycles)
  attrs @2 :List(Attr);
  file @3 :UInt32;                # index into Graph.files of the user's source file (0: unknown)
  line @4 :UInt32;                # line in that file (0: unknown)
}

# A tensor whose bytes travel inside the graph: small constants and host arrays.
struct InlineTensor {
  dtype @0 :Text;
  shape @1 :List(Int64);
  data @2 :Data;                  # row-major, little-endian, exactly numel * itemsize bytes
}

# One input of a graph; the graph's "input" node with attribute index=i stands for inputs[i].
# Its dtype and shape attributes must equal the tensor's.
struct GraphInput {
  union {
    tensor @0 :Tensor;            # a tensor this daemon already holds (from run or upload)
    inline @1 :InlineTensor;      # at most maxChunkBytes of data
    # (protocol 1.6) A parameter of a Session.function graph: each Function.call gives its
    # value (its arguments, in the order of these inputs). Session.run refuses it.
    argument @2 :Void;
  }
}

struct Graph {
  nodes @0 :List(Node);           # in topological order
  inputs @1 :List(GraphInput);
  files @2 :List(Text);           # source file names; entry 0 is "" (unknown)
}

# A requested output of `run`.
struct Output {
  value @0 :ValueRef;
  fetch @1 :Bool;                 # return the bytes inline when they fit in maxChunkBytes
}

struct Result {
  tensor @0 :Tensor;
  dtype @1 :Text;
  shape @2 :List(Int64);
  data @3 :Data;                  # set when fetched and it fit: all the bytes; else empty
  fetched @4 :Bool;               # true when `data` holds the whole tensor
}

struct SessionStats {
  liveTensors @0 :UInt64;         # tensors of this session still referenced by a capability
  liveBytes @1 :UInt64;           # their bytes
  runs @2 :UInt64;                # run calls completed
  daemonLiveTensors @3 :UInt64;   # all sessions together
  daemonLiveBytes @4 :UInt64;
  # The compiled-kernel cache (fusion, issue 6), daemon-wide. Protocol note: minor bump.
  kernelMemoryHits @5 :UInt64;    # kernels a plan needed that were already loaded
  kernelDiskHits @6 :UInt64;      # kernels loaded from the disk cache (compiled earlier)
  kernelMisses @7 :UInt64;        # kernels compiled
  kernelCompiles @8 :UInt64;      # compiler runs (one per plan with missing kernels)
  kernelCompileNanos @9 :UInt64;  # wall time in the compiler
  compileMode @10 :Text;          # this session's mode (Session.setCompileMode)
  # (protocol 1.2) this session's float32 matmul precision (Session.setFloat32MatmulPrecision):
  # "highest", "high" or "medium". Empty from a 1.1 daemon, which computes at "highest".
  float32MatmulPrecision @11 :Text;
  # (protocol 1.3) Every compiled-kernel cache of the daemon: "host" (the C++ kernels of the
  # CPU backend, the figures above) first, then each device that keeps its own (e.g. "cuda:0",
  # NVRTC CUBINs). Empty from a 1.2 daemon.
  kernelCaches @12 :List(KernelCacheStats);
  # (protocol 1.7) What holds this session's live bytes, largest first, at most 3. Empty from a
  # 1.6 daemon.
  holdings @13 :List(Holding);
}

# (protocol 1.7) Bytes a session holds from one origin.
struct Holding {
  origin @0 :Text;     # where the tensors were made: "fit.py:12 (matmul)" (the op and the
                       # client's line), "upload", "captured by a function"
  bytes @1 :UInt64;
  tensors @2 :UInt64;
}

struct KernelCacheStats {
  target @0 :Text;          # "host", or the device ("cuda:0")
  memoryHits @1 :UInt64;    # kernels a plan needed that were already loaded
  diskHits @2 :UInt64;      # kernels loaded from the disk cache (compiled earlier)
  misses @3 :UInt64;        # kernels compiled
  compiles @4 :UInt64;      # compiler runs
  compileNanos @5 :UInt64;  # wall time in the compiler
}

# Session.memoryStats (protocol 1.2): one device's memory, in the sense of PyTorch's
# torch.cuda.memory_stats() ("all" pool). A part the device does not have is left unset
# (hasAllocator() / hasHostCache() false): a CPU has no caching allocator, and a GPU no host
# block cache. No figure is made up.
struct MemoryStat {
  current @0 :Int64;               # now
  peak @1 :Int64;                  # highest value
  allocated @2 :Int64;             # total ever added
  freed @3 :Int64;                 # total ever removed
}

struct AllocatorStats {
  allocatedBytes @0 :MemoryStat;      # blocks handed out (rounded to 512 bytes)
  reservedBytes @1 :MemoryStat;       # segments held from the device (cudaMalloc)
  activeBytes @2 :MemoryStat;         # allocated, plus freed blocks still used by other streams
  inactiveSplitBytes @3 :MemoryStat;  # free blocks inside split segments (fragmentation)
  requestedBytes @4 :MemoryStat;      # sizes as requested, before rounding
  allocation @5 :MemoryStat;          # the same as counts: blocks handed out
  segment @6 :MemoryStat;             # segments
  active @7 :MemoryStat;
  inactiveSplit @8 :MemoryStat;
  numAllocRetries @9 :Int64;          # device allocations retried after emptying the cache
  numOoms @10 :Int64;                 # requests that failed with out of memory
  numDeviceAlloc @11 :Int64;          # segments obtained from the device
  numDeviceFree @12 :Int64;           # segments given back
}

struct HostCacheStats {
  cachedBytes @0 :UInt64;          # freed large host blocks kept for reuse now
  hits @1 :UInt64;                 # allocations served from the cache
  misses @2 :UInt64;               # cacheable allocations that needed new memory
  evictions @3 :UInt64;            # blocks freed to keep the cache within its capacity
}

struct DeviceMemoryStats {
  device @0 :DeviceInfo;           # which device ("cpu" or "cuda", and its index)
  sessionDevice @1 :Bool;          # this session's work runs on it
  allocator @2 :AllocatorStats;    # set for devices with a caching allocator (CUDA)
  hostCache @3 :HostCacheStats;    # set for the CPU
}

# Session.explain: how a graph would be planned (fusion, issue 6).
struct Explanation {
  mode @0 :Text;
  groups @1 :List(ExplainedGroup);   # the fused groups, each one generated kernel
  boundaries @2 :List(FusionBoundary);
  steps @3 :UInt32;                  # kernels a run launches (fused groups and single ops)
  planCached @4 :Bool;               # the plan was in the plan cache before this call
  kernelsCached @5 :Bool;            # every kernel was loaded before this call
  captured @6 :Bool;                 # replayed as a CUDA graph: never on the CPU
  text @7 :Text;                     # the same, readable
}

struct ExplainedGroup {
  kernel @0 :Text;                   # the generated entry point (source hash)
  ops @1 :List(Text);                # its primitive ops, in order
  nodes @2 :List(UInt32);            # the user's graph nodes they stem from
}

struct FusionBoundary {
  node @0 :UInt32;                   # the user's graph node
  op @1 :Text;                       # the primitive op that did not fuse
  reason @2 :Text;
}

interface Session {
  # Validates and runs `graph`, returning one Result per requested output, in order. The fetch
  # rides in the same call: a sync point costs one round trip for outputs that fit in a chunk.
  run @0 (graph :Graph, outputs :List(Output)) -> (results :List(Result));

  # Starts a chunked upload of a tensor of `dtype` and `shape`. The client may pipeline
  # `write` calls on `sink` without waiting, keeping a few in flight for flow control.
  upload @1 (dtype :Text, shape :List(Int64)) -> (sink :UploadSink);

  stats @2 () -> (stats :SessionStats);

  # Starts profiling this session (protocol 1.1): the
  # daemon records what `options` asks and pushes chunks of the compact trace form
  # (docs/profiler.md) to `sink` while work runs. Fails with `unsupported` while another
  # profile of the session runs. Stopping (ProfileHandle.stop, or dropping the handle) flushes
  # what is pending and then calls `sink.done`. (protocol 1.8) `heldBefore`: the session's live
  # bytes when the profile began (SessionStats.liveBytes then; the profile records only the
  # frees of those blocks the daemon tracked), `heldBeforeBy` the largest of them by origin, at
  # most 3. An older daemon leaves them 0 and empty.
  profile @3 (options :ProfileOptions, sink :TraceSink)
      -> (handle :ProfileHandle, heldBefore :UInt64, heldBeforeBy :List(Holding));

  # Same-host upload through shared memory (protocol 1.1): the daemon maps
  # `memory` read-only and copies the tensor's row-major bytes from its start. Needs a unix
  # socket (the fd rides with the capability); over TCP it fails with `unsupported` and the
  # client uses `upload`. Fails with invalidGraph when the memory is smaller than the tensor or
  # not sealed against shrinking.
  uploadShared @4 (dtype :Text, shape :List(Int64), memory :SharedMemory) -> (tensor :Tensor);

  # (protocol 1.1) "eager" (no fusion), "default" (fuse), "reduce-overhead", "max-autotune" (on the CPU both
  # plan as "default": capture and launch tuning are GPU things). Unknown names: invalidGraph.
  # A new session starts in "reduce-overhead" on a daemon whose device is a GPU (repeated
  # plans replay as CUDA graphs), else in "default".
  setCompileMode @5 (mode :Text);

  # The plan `run` would use for this graph in the session's mode; builds (and caches) it
  # and its kernels, runs nothing.
  explain @6 (graph :Graph, outputs :List(Output)) -> (explanation :Explanation);

  # (protocol 1.2) The memory statistics of every device the daemon runs, in device order
  # (ServerInfo.devices). Read without waiting for queued work, as PyTorch's memory_stats().
  memoryStats @7 () -> (devices :List(DeviceMemoryStats));

  # (protocol 1.2) PyTorch's torch.set_float32_matmul_precision for this session's runs:
  # "highest" (float32), "high" (may use TF32) or "medium" (may use bfloat16 inputs). Runs
  # already sent keep the precision they were sent with. The CPU always computes in float32.
  # Unknown names: invalidGraph.
  setFloat32MatmulPrecision @8 (precision :Text);

  # (protocol 1.6) Validates `graph` once and keeps it as a Function whose calls skip the
  # graph's transfer, translation, validation and plan lookup: what jax.jit and a replayed
  # CUDA graph give a repeated step. The graph's `argument` inputs are the parameters (their
  # input nodes' dtype and shape attributes are their types); its other inputs are captured
  # (the function keeps those tensors alive). Errors as `run` would give for the graph.
  function @9 (graph :Graph, outputs :List(Output)) -> (function :Function);
}

# (protocol 1.6) A graph kept by the daemon for repeated calls (Session.function). Calls run in
# the session's current compile mode and float32 matmul precision, in order with its runs.
interface Function {
  # `arguments[i]` is the value of the graph's i-th `argument` input: a Tensor of this daemon
  # or inline data (never `argument`), of exactly its dtype and shape. `fetch[i]` asks for
  # output i's bytes inline, as Output.fetch does (missing entries: false). One Result per
  # output of the function, in order.
  # `outputs` gives each result's Tensor again, for promise pipelining: a client that has not
  # seen the reply yet can pass `outputs.get(i).tensor` (a promise) to its next call or run,
  # which then starts as soon as this one is done, without a round trip in between. The daemon
  # answers `outputs` before the call has run (unless an output's size depends on the data):
  # such a Tensor's `info` answers at once, `read` waits for the call, and a failed call fails
  # the calls and runs given its results with its own error.
  call @0 (arguments :List(GraphInput), fetch :List(Bool))
      -> (results :List(Result), outputs :CallOutputs);

  # The plan a call would use now (the session's compile mode), as Session.explain gives it:
  # fused groups, boundaries, whether it is cached and replayed as a CUDA graph. Runs nothing.
  explain @1 () -> (explanation :Explanation);
}

# (protocol 1.6) The results of one Function.call, by index (list elements cannot be pipelined).
interface CallOutputs {
  get @0 (index :UInt32) -> (tensor :Tensor);  # index out of range: invalidGraph
}

struct ProfileOptions {
  trace @0 :Bool = true;           # spans of every stage of every request and of each step
  memory @1 :Bool = false;         # every allocation and free, with its op and source line
  bufferRecords @2 :UInt32 = 16384; # records the daemon holds for a slow client; more are
                                   # dropped and counted (the count reaches the client)
  # (protocol 1.4) The client decodes FreeRequested records (kind 10 of the compact form,
  # docs/profiler.md): each free is then recorded when it is requested and when it completes
  # (a CUDA block other streams still use completes later). Older clients leave it false and
  # get the completed frees only. Memory records may also carry the flags kDeviceOwned
  # (workspaces and graph pools, sent to every profile recording memory) and, in snapshots,
  # kPendingFree; older clients ignore flags they do not know.
  freeRequested @3 :Bool = false;
}

# Implemented by the client. The daemon calls `write` with flow control (a streaming method)
# and `done` once, after the last chunk.
interface TraceSink {
  write @0 (chunk :Data) -> stream;
  done @1 (recorded :UInt64, dropped :UInt64);
}

interface ProfileHandle {
  # Stops recording, sends what is pending, calls the sink's `done`, then returns.
  stop @0 () -> (recorded :UInt64, dropped :UInt64);

  # This session's live memory blocks (those allocated while memory was recorded), as one
  # chunk of the compact form holding an Alloc record per block.
  snapshot @1 () -> (chunk :Data);
}

# Host memory of a client on the daemon's host: a memfd sealed with F_SEAL_SHRINK (so the
# mapped length stays valid), whose file descriptor is attached to the capability when it is
# passed over a unix socket (Cap'n Proto fd passing). It has no methods; the daemon reads the
# fd with Capability::Client::getFd.
interface SharedMemory {
}

interface UploadSink {
  # Bytes [offset, offset + data.size) of the row-major tensor; at most maxChunkBytes each.
  # Chunks may come in any order but must not overlap or run past the end.
  write @0 (offset :UInt64, data :Data);

  # Fails with invalidGraph unless every byte was written exactly once.
  finish @1 () -> (tensor :Tensor);
}

# A tensor held by the daemon. Dropping the last reference frees it.
interface Tensor {
  info @0 () -> (dtype :Text, shape :List(Int64));

  # Bytes [offset, offset + length) of the row-major data; length at most maxChunkBytes.
  read @1 (offset :UInt64, length :UInt64) -> (data :Data);

  # Copies the whole row-major tensor into the start of `memory` (same-host download; see
  # Session.uploadShared for the conditions on `memory`).
  readShared @2 (memory :SharedMemory) -> ();
}
