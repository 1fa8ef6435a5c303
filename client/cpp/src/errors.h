// Failed calls, as tensord::Error for the user.
#pragma once

#include <kj/exception.h>

#include <cstdint>
#include <optional>
#include <source_location>

#include "client/cpp/src/graph_builder.h"
#include "engine/ir/error.h"

namespace tensord::detail {

// The daemon's error decoded (protocol/wire_error.h). Its node index refers to the graph we
// sent; the op and source line it names came from that graph, and where it names none, the
// recorded node supplies them. Errors no node caused (a lost connection) point at `fallback`,
// the line of the sync point. `node_hint` attributes errors the daemon gave no node, e.g. the
// failed upload of graph input `node_hint`.
Error translate(const kj::Exception& e, const PendingGraph* graph, std::source_location fallback,
                std::optional<uint32_t> node_hint = std::nullopt);

}  // namespace tensord::detail
