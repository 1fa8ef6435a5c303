#include "tools/precompile/options.h"

#include <stdexcept>

namespace tensord::precompile {

const char* const kUsage =
    "usage: tensord-precompile --cache-dir DIR [--arch 90] [--sm-count 132] [--jobs N]\n"
    "                          [--deadline SECONDS] | --identity [--arch 90]\n"
    "Compiles the CUDA backend's kernels with NVRTC into DIR/cuda (no GPU needed), for a\n"
    "daemon started with --cache-dir DIR on a GPU of compute capability ARCH (90: sm_90, H100\n"
    "and H200). The daemon finds them when its NVRTC version and options are the same:\n"
    "--identity prints what a key is made of (compare it on the GPU host). SM_COUNT (the\n"
    "target's multiprocessors) decides how reductions split their rows, hence some kernels.\n";

namespace {

int to_int(const std::string& flag, const std::string& value, int lo, int hi) {
  size_t used = 0;
  int v = 0;
  try {
    v = std::stoi(value, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != value.size() || value.empty() || v < lo || v > hi) {
    throw std::invalid_argument(flag + " wants a whole number from " + std::to_string(lo) + " to " +
                                std::to_string(hi) + ", not '" + value + "'");
  }
  return v;
}

}  // namespace

Options parse(const std::vector<std::string>& args) {
  Options o;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--identity") {
      o.identity = true;
      continue;
    }
    if (a != "--cache-dir" && a != "--arch" && a != "--sm-count" && a != "--jobs" &&
        a != "--deadline") {
      throw std::invalid_argument("unknown argument '" + a + "'");
    }
    if (i + 1 >= args.size()) throw std::invalid_argument(a + " needs a value");
    const std::string& v = args[++i];
    if (a == "--cache-dir") {
      if (v.empty()) throw std::invalid_argument("--cache-dir needs a directory");
      o.cache_dir = v;
    } else if (a == "--arch") {
      o.arch = to_int(a, v, 50, 200);
    } else if (a == "--sm-count") {
      o.sm_count = to_int(a, v, 1, 4096);
    } else if (a == "--jobs") {
      o.jobs = to_int(a, v, 0, 1024);
    } else {
      o.deadline_s = to_int(a, v, 0, 86400);
    }
  }
  if (!o.identity && o.cache_dir.empty()) throw std::invalid_argument("--cache-dir is required");
  return o;
}

}  // namespace tensord::precompile
