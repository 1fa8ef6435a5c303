#include "server/run_request.h"

#include <optional>
#include <string>
#include <utility>

#include "engine/ir/error.h"
#include "engine/profiler/record.h"
#include "protocol/wire_error.h"
#include "server/device_bytes.h"
#include "server/exceptions.h"
#include "server/inline_runs.h"
#include "server/tensor_impl.h"
#include "server/transfer_trace.h"
#include "server/wire_types.h"
#include "server/worker_call.h"

namespace tensord::server {
namespace {

// What the worker hands back: the output values, and the bytes of those fetched inline.
struct RunOutcome {
  std::vector<engine::TensorValue> values;
  std::vector<std::optional<std::vector<uint8_t>>> data;
  // The fetched bytes as host staging, until the reply is built (after `data`: freed first).
  std::vector<profiler::BlockTicket> staging;
  // Per output, the op and user's line that made it: the published tensors keep it for quota
  // errors and the staging of their chunked reads.
  std::vector<TensorImpl::Origin> origins;
};

// Inline input bytes wait on the host for the worker to copy them to the device: staging.
void track_inline_inputs(const engine::RunProfile& profile, DaemonState& daemon, RunRequest& run) {
  run.inline_staging.resize(run.slots.size());
  for (size_t i = 0; i < run.slots.size(); ++i) {
    if (const auto* bytes = std::get_if<InlineInput>(&run.slots[i])) {
      run.inline_staging[i] = track_staging(profile.profiler, *daemon.memory, bytes->data.size(),
                                            bytes->data.data(), "upload", profile.request);
    }
  }
}

void trace_transfer(profiler::Profiler& p, profiler::Stage stage, int64_t start, uint64_t request,
                    uint64_t bytes, uint64_t hash) {
  profiler::Record r;
  r.stage = static_cast<uint8_t>(stage);
  r.thread = profiler::kWorkerThread;
  r.request = request;
  r.start_ns = start;
  r.dur_ns = p.now() - start;
  r.bytes = bytes;
  r.hash = hash;
  p.add(r);
}

// An inline input copied to the device: a span with the content hash (to spot the same data
// sent again) and the new buffer in the memory ledger.
void trace_upload(const engine::RunProfile& profile, const engine::TensorValue& value,
                  const std::vector<uint8_t>& bytes, int64_t start) {
  if (profile.tracing()) {
    trace_transfer(*profile.profiler, profiler::Stage::Upload, start, profile.request, bytes.size(),
                   profiler::content_hash(bytes.data(), bytes.size()));
  }
  if (profile.memory()) {
    profiler::AllocSite site;
    site.profiler = profile.profiler;
    site.request = profile.request;
    site.op = "upload";
    site.address = reinterpret_cast<uintptr_t>(value.buffer->data());
    value.buffer->ticket = profile.ledger->track(value.buffer->bytes(), site);
  }
}

// The most fetched bytes one reply carries inline. Each output may take up to maxChunkBytes, but
// a reply must stay far below Cap'n Proto's 64 MiB limit, which readers also apply to the bytes
// they traverse (each read of a Data field counts). Outputs past this budget come back with
// fetched = false and the client reads them in chunks, as for any large output.
constexpr uint64_t kMaxInlineReplyBytes = 4 * ::MAX_CHUNK_BYTES;

// Worker side: device copies of inline inputs, the engine run, and the inline fetches.
// `profile` is null unless the session profiles.
RunOutcome execute(engine::Engine& engine, RunRequest& run, uint64_t max_chunk_bytes,
                   const engine::RunProfile* profile) {
  std::vector<engine::TensorValue> inputs;
  inputs.reserve(run.slots.size());
  for (size_t i = 0; i < run.slots.size(); ++i) {
    InputSlot& slot = run.slots[i];
    if (auto* value = std::get_if<engine::TensorValue>(&slot)) {
      inputs.push_back(std::move(*value));
    } else if (const auto* queued = std::get_if<QueuedInput>(&slot)) {
      inputs.push_back(queued->take());
    } else {
      auto& bytes = std::get<InlineInput>(slot);
      int64_t t = profile ? profile->profiler->now() : 0;
      inputs.push_back(upload_device_bytes(engine.backend(), bytes.type, bytes.data.data()));
      if (profile) trace_upload(*profile, inputs.back(), bytes.data, t);
      if (i < run.inline_staging.size()) run.inline_staging[i].reset();
      bytes.data = {};
    }
  }
  // What made each output, taken before the graph moves into the engine. The graph is not
  // validated yet: an output or file out of range gets no origin (the engine refuses the graph).
  RunOutcome out;
  const ir::Graph& graph = run.user_graph();
  out.origins.reserve(run.user_outputs().size());
  for (ir::ValueRef v : run.user_outputs()) {
    TensorImpl::Origin& origin = out.origins.emplace_back();
    if (v.node >= graph.nodes.size()) continue;
    const ir::Node& node = graph.nodes[v.node];
    // An input output is the bytes the client sent at that line (a held tensor's buffer keeps
    // its own origin: the first charge names it).
    origin.what = node.op == ir::Op::input ? std::string_view("upload") : ir::name(node.op);
    if (node.loc.file < graph.files.size()) {
      origin.file = graph.files[node.loc.file];
      origin.line = node.loc.line;
    }
  }
  const bool memory = profile && profile->memory();
  out.values = run.prepared
                   ? engine.run_prepared(*run.prepared, inputs, run.mode, profile)
                   : engine.run(std::move(run.graph), inputs, run.outputs, run.mode, profile);
  out.data.resize(out.values.size());
  if (memory) out.staging.resize(out.values.size());
  uint64_t budget = kMaxInlineReplyBytes;
  for (size_t i = 0; i < out.values.size(); ++i) {
    uint64_t n = out.values[i].nbytes();
    if (i < run.fetch.size() && run.fetch[i] && n <= max_chunk_bytes && n <= budget) {
      int64_t t = profile ? profile->profiler->now() : 0;
      out.data[i].emplace(n);
      if (memory && i < out.origins.size()) [[unlikely]] {
        out.staging[i] =
            track_staging(profile->profiler, *profile->ledger, n, out.data[i]->data(), "fetch",
                          profile->request, out.origins[i].file, out.origins[i].line);
      }
      read_device_bytes_into(engine.backend(), out.values[i], 0, out.data[i]->data(), n);
      if (profile && profile->tracing()) {
        trace_transfer(*profile->profiler, profiler::Stage::Fetch, t, profile->request, n, 0);
      }
      budget -= n;
    }
  }
  return out;
}

// execute(), leaving the outputs (or the failure) where the calls queued behind this one take
// them.
RunOutcome execute_and_share(engine::Engine& engine, RunRequest& run, uint64_t max_chunk_bytes,
                             const engine::RunProfile* profile) {
  const std::shared_ptr<QueuedOutputs> shared = run.queued_outputs;
  if (!shared) return execute(engine, run, max_chunk_bytes, profile);
  try {
    RunOutcome out = execute(engine, run, max_chunk_bytes, profile);
    shared->values = out.values;
    shared->ended = true;
    return out;
  } catch (...) {
    shared->error = std::current_exception();
    shared->ended = true;
    throw;
  }
}

// The outputs as Results. `pending`: the call handed out its results before it ran; they are
// filled rather than new tensors published.
void publish(const std::shared_ptr<SessionCore>& session, RunOutcome outcome,
             ResultsInit& init_results, PendingResults* pending) {
  // The outputs become the session's tensors: past its memory limit, the run fails instead
  // (they are freed with `outcome`).
  std::vector<std::pair<const void*, uint64_t>> buffers;
  for (const engine::TensorValue& v : outcome.values)
    buffers.emplace_back(v.buffer.get(), v.nbytes());
  session->account()->check_room(session->account()->new_bytes(buffers),
                                 "the run's " + std::to_string(outcome.values.size()) +
                                     (outcome.values.size() == 1 ? " output" : " outputs"));
  if (pending && pending->size() != outcome.values.size()) {
    throw Error(ErrorCode::Internal, "a call made " + std::to_string(outcome.values.size()) +
                                         " outputs; it promised " +
                                         std::to_string(pending->size()));
  }
  auto list = init_results(static_cast<unsigned>(outcome.values.size()));
  for (size_t i = 0; i < outcome.values.size(); ++i) {
    engine::TensorValue& value = outcome.values[i];
    auto r = list[i];
    r.setDtype(std::string(ir::name(value.type.dtype)));
    shape_to_wire(value.type.shape, r.initShape(value.type.shape.size()));
    if (const auto& bytes = outcome.data[i]) {
      r.setData(kj::arrayPtr(bytes->data(), bytes->size()));
      r.setFetched(true);
    }
    TensorImpl::Origin origin =
        i < outcome.origins.size() ? std::move(outcome.origins[i]) : TensorImpl::Origin{};
    if (pending) {
      pending->fill(i, std::move(value), std::move(origin));
      r.setTensor(pending->tensors()[i]);
    } else {
      r.setTensor(TensorImpl::publish(session, std::move(value), std::move(origin)));
    }
  }
}

// An out-of-memory error of a run also names what the session's live tensors hold and where
// they were made: what the user can free. (The ledger's report, with every block of the
// device, needs a memory profile running; the session's account is always kept.)
kj::Exception with_holdings(kj::Exception&& e, const Account& account) {
  std::optional<Error> error = protocol::decode_error(e.getDescription().cStr());
  if (!error || error->code() != ErrorCode::OutOfMemory || account.usage().bytes == 0) return e;
  const Usage& daemon = account.daemon_usage();
  std::string held = "; this session's " + std::to_string(account.usage().tensors) +
                     " live tensors hold " + bytes_text(account.usage().bytes) +
                     ", the largest: " + account.holdings_text();
  if (daemon.bytes > account.usage().bytes) {
    held += "; other sessions' tensors hold " + bytes_text(daemon.bytes - account.usage().bytes);
  }
  return protocol::to_kj_exception(
      Error(error->code(), error->message() + held, error->node(), error->op(), error->where()));
}

// What the dashboard shows of a failed run: a tensord error's one-line summary
// ("shape error in svd (node 1) at fit.py:12: ...").
std::string run_error_text(const kj::Exception& e) {
  if (auto error = protocol::decode_error(e.getDescription().cStr())) return error->what();
  return e.getDescription().cStr();
}

// Slot `k` of `run` from `impl`, the TensorImpl behind its capability, once `impl` can give it.
kj::Promise<void> take_tensor(SessionCore& session, std::shared_ptr<PendingRun> run, size_t k,
                              TensorImpl& impl) {
  const PendingTensor& t = run->tensors[k];
  // A tensor whose call failed fails this request with that call's error.
  if (impl.state() == TensorImpl::State::Failed) kj::throwFatalException(kj::cp(impl.failure()));
  if (t.expected && impl.type() != *t.expected) {
    throw Error(ErrorCode::InvalidGraph, t.what + " is " + ir::to_string(impl.type()) +
                                             "; the function takes " + ir::to_string(*t.expected));
  }
  InputSlot& slot = run->request.slots[t.slot];
  if (impl.state() == TensorImpl::State::Ready) {
    slot = impl.value();
    return kj::READY_NOW;
  }
  // Our session's queue runs this request after the call that makes the tensor, once that call
  // is queued. Another session's queue is not ordered with ours: wait for the value.
  if (impl.state() == TensorImpl::State::Queued && impl.session().get() == &session) {
    slot = impl.queued_input(t.what);
    return kj::READY_NOW;
  }
  return impl.changed().then([&session, run = std::move(run), k, &impl]() mutable {
    return with_wire_errors([&] { return take_tensor(session, std::move(run), k, impl); });
  });
}

}  // namespace

kj::Promise<void> resolve(SessionCore& session, std::shared_ptr<PendingRun> run) {
  kj::Vector<kj::Promise<void>> resolving;
  for (size_t k = 0; k < run->tensors.size(); ++k) {
    resolving.add(session.daemon()
                      .tensors.getLocalServer(run->tensors[k].client)
                      .then([&session, run, k](kj::Maybe<::Tensor::Server&> server) {
                        return with_wire_errors([&]() -> kj::Promise<void> {
                          KJ_IF_MAYBE (s, server) {
                            // The capability in run->tensors[k] keeps the TensorImpl alive.
                            return take_tensor(session, run, k, kj::downcast<TensorImpl>(*s));
                          }
                          throw Error(ErrorCode::InvalidGraph,
                                      run->tensors[k].what +
                                          " is a Tensor capability this daemon did not create");
                        });
                      }));
  }
  if (resolving.empty()) return kj::READY_NOW;
  return kj::joinPromises(resolving.releaseAsArray());
}

RequestProfile::RequestProfile(SessionCore& session) {
  if (session.profiler()->active()) [[unlikely]] {
    profile = session.run_profile(session.profiler()->next_request());
    arrived = profile->profiler->now();
  }
}

void RequestProfile::received() const {
  if (profile && profile->tracing()) {
    profile->profiler->span(profiler::Stage::Receive, arrived, profiler::kEventLoopThread,
                            profile->request);
  }
}

namespace {

// The engine, when `run` is small enough to run here on the event loop without making anyone
// wait (server/inline_runs.h). A Function call's size was found when it was defined.
std::optional<scheduler::LentEngine> lend_for_inline_run(SessionCore& session, PendingRun& run) {
  RunRequest& request = run.request;
  if (!session.config().inline_small_runs || !session.queue().engine_lendable()) {
    return std::nullopt;
  }
  if (request.prepared) {
    if (!request.small_prepared) return std::nullopt;
    return session.queue().borrow_idle_engine();
  }
  if (!few_linear_nodes(request.graph)) return std::nullopt;
  std::vector<ir::TensorType> types;
  types.reserve(request.slots.size());
  for (const InputSlot& slot : request.slots) {
    types.push_back(std::visit([](const auto& s) { return s.type; }, slot));
  }
  ir::Limits limits;
  limits.max_tensor_bytes = static_cast<int64_t>(session.config().max_tensor_bytes);
  if (!small_enough_to_run_inline(request.graph, types, limits)) return std::nullopt;
  return session.queue().borrow_idle_engine();
}

}  // namespace

kj::Promise<void> run_request(std::shared_ptr<SessionCore> session, std::shared_ptr<PendingRun> run,
                              RequestProfile request_profile, std::shared_ptr<RunMarks> marks,
                              ResultsInit init_results) {
  std::optional<engine::RunProfile> profile = std::move(request_profile.profile);
  const int64_t arrived = request_profile.arrived;
  run->request.mode = session->compile_mode();
  if (profile && profile->memory()) [[unlikely]] {
    track_inline_inputs(*profile, session->daemon(), run->request);
  }
  uint64_t max_chunk = session->config().max_chunk_bytes;
  std::shared_ptr<PendingResults> pending = run->results;
  auto ran =
      resolve(*session, run)
          .then([session, run, max_chunk, profile, marks, pending]() {
            int64_t queued = profile ? profile->profiler->now() : 0;
            std::optional<scheduler::LentEngine> lent = lend_for_inline_run(*session, *run);
            auto job = [request = std::move(run->request), max_chunk, profile, queued, marks,
                        running = session->running_since()](engine::Engine& engine) mutable {
              marks->on_worker = ActivityLog::Clock::now();
              running->store(marks->on_worker->time_since_epoch().count());
              KJ_DEFER(running->store(0));
              if (profile && profile->tracing()) {
                profile->profiler->span(profiler::Stage::QueueWait, queued, profiler::kWorkerThread,
                                        profile->request);
              }
              return execute_and_share(engine, request, max_chunk, profile ? &*profile : nullptr);
            };
            auto done = lent ? run_on_lent_engine(*lent, job)
                             : run_on_worker(session->queue(), std::move(job));
            lent.reset();  // before anything else runs on this thread
            if (pending) pending->queued();
            return done.catch_([session](kj::Exception&& e) -> kj::Own<RunOutcome> {
              kj::throwFatalException(with_holdings(kj::mv(e), *session->account()));
            });
          })
          .then([session, profile, arrived, nodes = marks->nodes,
                 init_results = kj::mv(init_results),
                 pending](kj::Own<RunOutcome> outcome) mutable {
            KJ_DEFER(if (profile && profile->tracing()) {
              profile->profiler->span(profiler::Stage::Request, arrived, profiler::kEventLoopThread,
                                      profile->request);
            });
            with_wire_errors([&] {
              size_t outputs = outcome->values.size();
              publish(session, std::move(*outcome), init_results, pending.get());
              Logger& log = session->daemon().log;
              if (log.enabled(LogLevel::Debug)) {
                log.debug(session->label() + ": ran " + std::to_string(nodes) + " nodes, " +
                          std::to_string(outputs) + " outputs");
              }
            });
          });
  if (!pending) return ran;
  // Whoever holds the results (or is queued behind them) learns why they never came.
  return ran.catch_([pending](kj::Exception&& e) {
    pending->fail(e);
    kj::throwFatalException(kj::mv(e));
  });
}

kj::Promise<void> counted_run(std::shared_ptr<SessionCore> session,
                              kj::Function<kj::Promise<void>(std::shared_ptr<RunMarks>)> steps) {
  const auto started = ActivityLog::Clock::now();
  auto marks = std::make_shared<RunMarks>();
  auto finished = [session, started, marks](std::string error) {
    const auto waited =
        marks->on_worker ? *marks->on_worker - started : ActivityLog::Clock::duration{};
    session->finished_run(started, waited, marks->nodes, std::move(error));
  };
  return kj::evalNow([&] { return with_wire_errors([&] { return steps(marks); }); })
      .then([finished] { finished({}); },
            [finished](kj::Exception&& e) {
              finished(run_error_text(e));
              kj::throwFatalException(kj::mv(e));
            });
}

}  // namespace tensord::server
