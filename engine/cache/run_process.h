// Runs a program (no shell) and waits for it, its output captured: the host compiler.
#pragma once

#include <string>
#include <vector>

namespace tensord::cache {

struct ProcessResult {
  int status = -1;     // exit status; -1 when it could not start or was killed
  std::string output;  // stdout and stderr together, at most 64 KiB
};

ProcessResult run_process(const std::vector<std::string>& argv);

}  // namespace tensord::cache
