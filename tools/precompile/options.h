// The command line of tensord-precompile (and of tensord_conformance_precompile, which takes the
// same flags): where the cache goes and for which device it is compiled.
#pragma once

#include <string>
#include <vector>

namespace tensord::precompile {

struct Options {
  std::string cache_dir;  // the daemon's --cache-dir: CUBINs go to <cache_dir>/cuda
  int arch = 90;          // compute capability * 10 + minor: 90 for H100 and H200 (sm_90)
  int sm_count = 132;     // multiprocessors of the target (H100 SXM, H200: 132); see usage
  int jobs = 0;           // compiling threads; 0: one per core
  double deadline_s = 0;  // start no compile after this many seconds; 0: none
  bool identity = false;  // print the cache identity (NVRTC version included) and stop
};

extern const char* const kUsage;

// Throws std::invalid_argument naming the bad flag or value.
Options parse(const std::vector<std::string>& args);

}  // namespace tensord::precompile
