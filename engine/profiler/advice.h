// Recommendations from a trace, each with the evidence that triggered it. Rules read records
// only, so the GPU rules (CUDA graphs, TF32, kernel launch overhead, fragmentation) work on the
// records a GPU backend emits and are tested with crafted traces until one exists.
#pragma once

#include <string>
#include <vector>

#include "engine/profiler/compact.h"

namespace tensord::profiler {

struct Recommendation {
  std::string rule;      // cuda_graph, fusion_break, tf32, sync_in_loop, fragmentation,
                         // launch_overhead, repeated_transfer
  std::string message;   // what to do
  std::string evidence;  // the figures from the trace that triggered it
};

std::vector<Recommendation> recommend(const Trace& trace);

}  // namespace tensord::profiler
