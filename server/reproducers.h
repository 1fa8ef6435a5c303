// Where the daemon leaves reproducers of runs that failed inside the engine (--repro-dir).
#pragma once

#include <functional>
#include <string>

#include "server/log.h"
#include "server/options.h"

namespace tensord::server {

// The directory: --repro-dir, else <kernel cache dir>/repro, else a directory under /tmp.
std::string reproducer_dir(const Options& options, const std::string& kernel_cache_dir);

// A sink for engine::EngineOptions::on_internal_error: writes each reproducer to a new file in
// `dir` (under a temporary name, then renamed), logs its path and returns it ("" when it could
// not be written). Reproducers hold the bytes of small inputs, so their files are private to
// the daemon's user (0600), `dir` is created 0700 when missing, and one owned by another user
// is refused with an error in the log. Never throws.
std::function<std::string(const std::string&)> reproducer_writer(std::string dir, Logger& log);

// Handlers of SIGSEGV, SIGBUS, SIGILL and SIGFPE that write the reproducer of the fused plan the
// crashing thread was running (engine/exec/running_plan.h) into `dir` as
// crash-PID-N.json, say so on stderr, and let the signal end the process as it would have (a
// core dump where enabled). A crash outside a fused plan writes nothing. Process-wide, as
// signal handlers are: the daemon's main installs them once. Logs why when `dir` cannot be
// made private.
void install_crash_reproducers(const std::string& dir, Logger& log);

}  // namespace tensord::server
