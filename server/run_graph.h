// Session.run: translate the wire graph on the event loop, resolve the Tensor capabilities it
// names to our own tensors, run it on the session's worker, and publish the outputs.
#pragma once

#include <kj/async.h>

#include <memory>

#include "engine/exec/explain.h"
#include "server/session_core.h"
#include "tensord.capnp.h"

namespace tensord::server {

using RunContext = capnp::CallContext<::Session::RunParams, ::Session::RunResults>;

kj::Promise<void> run_graph(std::shared_ptr<SessionCore> session, RunContext context);

// Session.explain: the same translation, then the engine's explain on the session's worker.
using ExplainContext = capnp::CallContext<::Session::ExplainParams, ::Session::ExplainResults>;
kj::Promise<void> explain_graph(std::shared_ptr<SessionCore> session, ExplainContext context);

// The engine's explanation as the protocol's (Session.explain, Function.explain).
void explanation_to_wire(const engine::Explanation& e, ::Explanation::Builder out);

}  // namespace tensord::server
