// Compiling a fusing backend's kernels ahead of a test's many graphs (the conformance table, the
// random graphs). Run graph by graph, a test pays the compiler's fixed cost (process start, the
// prelude, the link: about half of a one-kernel unit's time) once per kernel, for hundreds or
// thousands of kernels; compiled forty to a unit, once per forty. The graphs run once first with
// the backend's compiles recorded instead of run (the engine then runs each plan unfused, as
// after a failed compile), then the recorded groups are compiled in batches on every core; the
// real run finds them in the backend's kernel cache. Whatever the first run missed compiles as
// before.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include "engine/exec/backend.h"

namespace tensord::test {

struct CompiledAhead {
  size_t groups = 0;          // fused groups the recording run asked the backend for
  size_t batches = 0;         // compile() calls they were split into
  size_t failed_batches = 0;  // batches that did not compile (their graphs compile one by one)
  double record_s = 0;        // the recording run
  double compile_s = 0;       // the batches, on every core
  std::string first_failure;  // the first failed batch's error, for the log
};

// Calls `run_graphs` with a backend that records the fused groups the graphs' plans would
// compile on `backend` (run_graphs must run them with the engine's unfused_on_compile_error
// on; their results are eager's), then compiles the groups through backend.compile() in
// batches of `batch`, on `threads` threads at once (0: every core).
CompiledAhead compile_fused_ahead(engine::Backend& backend,
                                  const std::function<void(engine::Backend&)>& run_graphs,
                                  size_t batch = 40, unsigned threads = 0);

// What compile_fused_ahead did, in a line for a test's log.
std::string describe(const CompiledAhead& ahead);

}  // namespace tensord::test
