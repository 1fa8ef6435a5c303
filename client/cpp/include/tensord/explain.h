// explain: how the daemon plans the work behind some tensors (fusion, issue 6), without
// running it. The plan and its kernels are built and cached, so a later sync reuses them.
#pragma once

#include <cstdint>
#include <source_location>
#include <string>
#include <vector>

namespace tensord {

class Tensor;

struct ExplainedGroup {
  std::string kernel;            // the loop IR of its generated kernel
  std::vector<std::string> ops;  // its primitive ops, in order
  std::vector<uint32_t> nodes;   // indices of the recorded graph's nodes they stem from
};

struct FusionBoundary {
  uint32_t node = 0;
  std::string op;
  std::string reason;  // why this op did not join its producer's kernel
};

struct Explanation {
  std::string mode;  // the session's compile mode
  std::vector<ExplainedGroup> groups;
  std::vector<FusionBoundary> boundaries;
  uint32_t steps = 0;           // kernel launches per run
  bool plan_cached = false;     // before this call
  bool kernels_cached = false;  // every kernel was loaded before this call
  bool captured = false;        // replayed as a CUDA graph (never on the CPU)
  std::string text;             // all of it, readable
};

// The plan of the pending work behind `tensors` (all of one session), in the session's compile
// mode. Tensors the daemon holds already count as inputs. Throws tensord::Error as sync does.
Explanation explain(const std::vector<Tensor>& tensors,
                    std::source_location loc = std::source_location::current());

}  // namespace tensord
