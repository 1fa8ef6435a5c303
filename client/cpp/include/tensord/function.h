// tensord::Function: a tensor function kept on the daemon, called with new arguments.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <source_location>
#include <vector>

#include "tensord/explain.h"
#include "tensord/tensor.h"

namespace tensord {

namespace detail {
struct FunctionState;
struct FunctionTrace;
struct TensorNode;
}  // namespace detail

// A function of tensors traced once per argument signature (dtypes and shapes) and kept on the
// daemon (Session.function, protocol 1.6): each call sends only its arguments and runs the
// kept graph, skipping the graph's recording, transfer, translation, validation and plan
// lookup. jax.jit is the model; on a GPU in "reduce-overhead" mode the kept plan replays as a
// CUDA graph. Made by Session::function; copies share it.
//
// Tracing calls the body with stand-ins for the arguments. Tensors the body reads that are not
// arguments are captured as they are at that time (later changes to them are not seen: pass
// them as arguments instead); values it records stand for the call's results only and cannot
// be synced (tensord::Error(InvalidGraph) if one escapes and is). A call's arguments must be
// tensors of the Function's session: daemon tensors, small host data (sent inline), or pending
// values (synced first, one extra run).
class Function {
 public:
  using Loc = std::source_location;
  using Body = std::function<std::vector<Tensor>(const std::vector<Tensor>& args)>;

  // The results. The call returns once sent (the daemon runs a session's calls and runs in
  // order); the results' types are known at once and their values when used: a read or a sync
  // waits for the call's reply, and raises its error if the call failed (as the daemon
  // attributed it, else at `loc`). As an argument of another call or an input of recorded ops
  // a result goes as a promise, without waiting: a chain of dependent calls is pipelined. A
  // call whose results are all dropped before its reply still runs; its error, if any, reaches
  // only what depended on it. Throws tensord::Error itself for a bad argument and
  // for the body's and the daemon's errors at a new signature (traced at the body's lines).
  std::vector<Tensor> operator()(const std::vector<Tensor>& args, Loc loc = Loc::current()) const;

  // The plan a call with `args` would use now (tracing it first at a new signature), as
  // tensord::explain gives it: fused groups, boundaries, caches, CUDA-graph replay. Runs nothing.
  Explanation explain(const std::vector<Tensor>& args, Loc loc = Loc::current()) const;

  // How many signatures were traced (each one graph on the daemon).
  size_t traces() const;

 private:
  friend class Session;
  detail::FunctionTrace& trace_for(const std::vector<Tensor>& args,
                                   std::vector<detail::TensorNode*>& nodes, Loc loc) const;
  explicit Function(std::shared_ptr<detail::FunctionState> state) : state_(std::move(state)) {}
  std::shared_ptr<detail::FunctionState> state_;
};

}  // namespace tensord
