// Session.function and the Function capability it returns (protocol 1.6): a graph translated,
// resolved and validated once, whose calls bring only their arguments.
#pragma once

#include <kj/async.h>

#include <memory>

#include "server/session_core.h"
#include "tensord.capnp.h"

namespace tensord::server {

using FunctionContext = capnp::CallContext<::Session::FunctionParams, ::Session::FunctionResults>;

// Translates the graph, resolves and uploads what it captures, validates it on the session's
// worker, and returns the Function. Errors as Session.run's for the same graph.
kj::Promise<void> define_function(std::shared_ptr<SessionCore> session, FunctionContext context);

}  // namespace tensord::server
