// Graph-to-graph passes run by the daemon before planning: decompose, CSE, DCE, canonical form.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "engine/ir/graph.h"

namespace tensord::ir {

// A rewritten graph and where each requested output of the original now lives.
struct Rewritten {
  Graph graph;
  std::vector<ValueRef> outputs;
  // For each node of `graph`, the node of the original graph it came from, so that errors and
  // profiles point at the node (and source line) the user recorded.
  std::vector<uint32_t> origin;
};

// Replaces composite ops by primitives (softmax -> max, sub, exp, sum, div; ...), and pow by a
// constant 2 or 3 by products (decompose_power.cpp). Source locations are kept on every node a
// composite expands into. float16/bfloat16 composites compute in float32 and cast back.
Rewritten decompose(const Graph& g, std::span<const ValueRef> outputs);

// Common subexpression elimination then dead code elimination: nodes with equal op, inputs and
// attributes are merged; nodes no output depends on are dropped. Input nodes are always kept
// (their numbering is the caller's), even when unused.
Rewritten simplify(const Graph& g, std::span<const ValueRef> outputs);

// The structure of a graph as words: ops, attributes, input edges, dtypes, shapes and the
// outputs, never source locations. Equal forms mean equal programs, so a plan cache keyed by
// this form cannot be poisoned by hash collisions (the hash only picks the bucket).
struct CanonicalForm {
  std::vector<uint64_t> words;
  uint64_t hash = 0;
  friend bool operator==(const CanonicalForm& a, const CanonicalForm& b) {
    return a.hash == b.hash && a.words == b.words;
  }
};
CanonicalForm canonical_form(const Graph& g, std::span<const ValueRef> outputs);

}  // namespace tensord::ir
