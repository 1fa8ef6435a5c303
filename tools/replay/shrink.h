// Shrinking a reproducer (`tensord-replay --shrink OUT`): the daemon writes the whole graph that
// failed; this finds a smaller graph that still fails, as PyTorch's minifier does for
// torch.compile. Two moves, each kept only when the smaller graph still fails:
//   - end the graph earlier: keep the nodes up to one node and make it the only output;
//   - cut a node off from what made it: it becomes a new graph input of its type (its value
//     regenerated from the replay's fixed seed), and the nodes only it needed go.
// Whether a candidate "still fails" is the caller's test (the replay runs it and compares the
// error code and failing op): a shrunk graph may fail for another reason of the same kind, and a
// failure that depends on the input values may vanish once values are regenerated.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "engine/exec/reproducer.h"

namespace tensord::replay {

// Nodes 0..last with node `last`'s first output as the only output; what it does not need is
// dropped. nullopt when `last` is out of range or has no output.
std::optional<engine::Reproducer> end_at(const engine::Reproducer& r, uint32_t last);

// Node `node` replaced by a graph input of its type (a node with one output, not an input),
// the nodes only it needed dropped. nullopt when `node` cannot be cut so.
std::optional<engine::Reproducer> cut_at(const engine::Reproducer& r, uint32_t node);

// The number of nodes that are not graph inputs: what shrinking makes smaller.
size_t op_count(const engine::Reproducer& r);

struct ShrinkOptions {
  size_t max_attempts = 400;  // candidates run at most; each may compile kernels
  std::function<void(const std::string&)> progress;  // one line per kept step; may be empty
};

struct Shrunk {
  engine::Reproducer smallest;
  size_t attempts = 0;
  size_t kept = 0;  // steps that made it smaller
};

// Shrinks `failing` (which `still_fails`) with the two moves until neither makes it smaller
// or the attempts run out: first the earliest end that still fails (a binary search, which
// assumes a prefix that fails stays failing when it grows), then each cut, from the output
// back towards the inputs.
Shrunk shrink(const engine::Reproducer& failing,
              const std::function<bool(const engine::Reproducer&)>& still_fails,
              const ShrinkOptions& options = {});

}  // namespace tensord::replay
