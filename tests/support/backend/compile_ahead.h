// Compiling a fusing backend's kernels ahead of the table. Run case by case, the table pays the
// compiler's fixed cost (process start, the prelude, the link: about half of a one-kernel
// unit's time) once per kernel, for thousands of kernels; compiled forty to a unit, once per
// forty. The table runs once first with the backend's compiles recorded instead of run (the
// engine then runs each plan unfused, as after a failed compile), then the recorded groups are
// compiled in batches on every core; the real run finds them in the backend's kernel cache.
// Whatever the first run missed compiles as before.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "engine/exec/backend.h"
#include "tests/conformance/case.h"

namespace tensord::conformance {

struct CompiledAhead {
  size_t groups = 0;          // fused groups the recording run asked the backend for
  size_t batches = 0;         // compile() calls they were split into
  size_t failed_batches = 0;  // batches that did not compile (their cases compile one by one)
  double record_s = 0;        // the recording run
  double compile_s = 0;       // the batches, on every core
  std::string first_failure;  // the first failed batch's error, for the log
};

// Records the groups the cases' fused plans would compile on `backend`, then compiles them
// through backend.compile() in batches of `batch` groups, on `threads` threads at once.
CompiledAhead compile_ahead(engine::Backend& backend, const std::vector<Case>& cases,
                            size_t batch = 40, unsigned threads = 0);

}  // namespace tensord::conformance
