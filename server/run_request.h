// What Session.run and Function.call share: a request's Tensor capabilities resolved to our
// tensors, its run on the session's worker (inline uploads, the engine, inline fetches), and
// its outputs published as the session's tensors, counted in the session and ActivityLog.
#pragma once

#include <kj/async.h>
#include <kj/function.h>

#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "engine/exec/engine.h"
#include "engine/profiler/memory_ledger.h"
#include "server/graph_from_wire.h"
#include "server/pending_results.h"
#include "server/queued_outputs.h"
#include "server/session_core.h"
#include "tensord.capnp.h"

namespace tensord::server {

// A graph input once its capability is resolved: a daemon tensor, bytes still on the host, or a
// result of an earlier call of the session still queued.
using InputSlot = std::variant<engine::TensorValue, InlineInput, QueuedInput>;

// Everything the worker needs: plain values only, never RPC objects.
struct RunRequest {
  ir::Graph graph;  // Session.run's (moved into the engine); empty for a call
  // Function.call's graph, validated once; touched on the session's worker only (or on the
  // thread its engine is lent to).
  std::shared_ptr<engine::PreparedGraph> prepared;
  // Whether `prepared` is small enough to run on the event loop (server/inline_runs.h).
  bool small_prepared = false;
  std::vector<InputSlot> slots;
  std::vector<ir::ValueRef> outputs;  // Session.run's; a call's are the prepared graph's
  std::vector<bool> fetch;            // per output
  engine::CompileMode mode = engine::CompileMode::Default;
  // Per slot: the staging ticket of its inline bytes while the session records memory.
  std::vector<profiler::BlockTicket> inline_staging;
  // A call with pipelined results: where its job leaves them for the jobs behind it.
  std::shared_ptr<QueuedOutputs> queued_outputs;

  const ir::Graph& user_graph() const { return prepared ? prepared->graph() : graph; }
  const std::vector<ir::ValueRef>& user_outputs() const {
    return prepared ? prepared->outputs() : outputs;
  }
};

// A capability of the request still to be resolved into slot `slot`; `what` names it in
// errors ("graph input 2", "argument 0"). A function's argument must be of `expected`.
struct PendingTensor {
  size_t slot;
  ::Tensor::Client client;
  std::string what;
  std::optional<ir::TensorType> expected = std::nullopt;
};

// A request on the event loop, while its Tensor capabilities resolve. The clients stay here,
// on the event loop thread; the request moves to the worker once it is complete.
struct PendingRun {
  std::vector<PendingTensor> tensors;
  RunRequest request;
  // A Function call's results, handed out before it ran; null for other requests.
  std::shared_ptr<PendingResults> results;
};

// Turns each Tensor capability of the request into the value of our TensorImpl behind it; a
// result of a call of `session` that is still queued becomes a QueuedInput (resolve waits until
// that call is queued, so that the request queues behind it), one of another session's call is
// waited for.
kj::Promise<void> resolve(SessionCore& session, std::shared_ptr<PendingRun> run);

// What a run of the ActivityLog learns as it goes: its size once the graph is read, and when a
// device worker took it (set on the worker; read on the event loop after the run's promise,
// which orders the two).
struct RunMarks {
  uint64_t nodes = 0;
  std::optional<ActivityLog::Clock::time_point> on_worker;
};

// Counts `steps`'s run in the session and the daemon's ActivityLog when it ends, well or not (a
// request refused before it ran included); a cancelled one does not end.
kj::Promise<void> counted_run(std::shared_ptr<SessionCore> session,
                              kj::Function<kj::Promise<void>(std::shared_ptr<RunMarks>)> steps);

// The profile a request runs under while its session profiles (none otherwise; one predictable
// branch), and when it arrived on the profiler's clock.
struct RequestProfile {
  explicit RequestProfile(SessionCore& session);
  // The Receive span, from the arrival to now: call once the request is translated.
  void received() const;

  std::optional<engine::RunProfile> profile;
  int64_t arrived = 0;
};

// Runs a translated request: resolves its capabilities, queues it on the session's worker
// (traced under `profile`), and publishes the outputs as Results through
// `init_results(count)`: as run->results' tensors when the call handed those out, which are
// failed with the request's error when it fails.
using ResultsInit = kj::Function<capnp::List<::Result>::Builder(unsigned)>;
kj::Promise<void> run_request(std::shared_ptr<SessionCore> session, std::shared_ptr<PendingRun> run,
                              RequestProfile profile, std::shared_ptr<RunMarks> marks,
                              ResultsInit init_results);

}  // namespace tensord::server
