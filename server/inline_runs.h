// Which Session.run requests and Function calls the event loop runs itself, on the device's engine
// lent while its worker idles (scheduler::SessionQueue::borrow_idle_engine), instead of queueing
// them: a tiny run then costs no thread hand-off, which on small machines is most of a sync point's
// latency (docs/design-notes.md, "Measured: what a round trip costs"). The loop serves every
// client, so only runs whose cost is bounded by a few thousand elements qualify.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "engine/ir/graph.h"
#include "engine/ir/op.h"

namespace tensord::server {

// At most this many nodes, and elements over every node's outputs (the graph's inputs
// included): ~32 KiB of float32, microseconds of elementwise work.
inline constexpr size_t kInlineRunMaxNodes = 64;
inline constexpr int64_t kInlineRunMaxElements = 8192;

// Whether an op's work grows at most about linearly with the elements it reads and writes
// (elementwise, reductions, views, copies, scans, gathers). Matmul, convolutions, pooling,
// sorting, linear algebra, FFT and attention are not: their cost is not bounded by the sizes
// above (a 64-element output of a convolution may read a whole tensor per element).
bool linear_in_elements(ir::Op op);

// The first check, on the graph as it arrived: at most kInlineRunMaxNodes nodes, each
// linear_in_elements. Safe on unvalidated graphs.
bool few_linear_nodes(const ir::Graph& graph);

// Whether the outputs of all nodes of a validated graph hold at most kInlineRunMaxElements
// elements in all.
bool few_elements(const ir::Graph& validated);

// The second check of a Session.run graph: validates `graph` in place for inputs of
// `input_types` (the engine validates it again, to the same result), then few_elements. A graph
// that does not validate is not small: the worker reports its error as for any run.
bool small_enough_to_run_inline(ir::Graph& graph, std::span<const ir::TensorType> input_types,
                                const ir::Limits& limits);

// A Function's graph, validated once when the function was defined: its calls all have the
// same types, so whether they are small is decided then, on the worker, for every call.
bool small_function(const ir::Graph& validated);

}  // namespace tensord::server
