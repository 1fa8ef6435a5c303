// Writes a PendingGraph as the protocol's Graph: nodes, attributes and the file table.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "client/cpp/src/graph_builder.h"
#include "client/cpp/src/wire.h"

namespace tensord::detail {

// Nodes and files of `graph`; the caller fills `graph.inputs` (capabilities, inline data or
// uploads) since that needs the connection.
void write_graph(const PendingGraph& pending, wire::Graph::Builder graph);

// Host bytes carried inside the graph.
void write_inline(const TensorNode& host, ::InlineTensor::Builder out);

// Cap'n Proto text from a string_view that need not be NUL-terminated.
template <typename Init>
void set_text(std::string_view s, Init&& init) {
  auto text = init(static_cast<unsigned>(s.size()));
  std::copy(s.begin(), s.end(), text.begin());
}

}  // namespace tensord::detail
