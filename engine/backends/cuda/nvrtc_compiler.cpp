#include "engine/backends/cuda/nvrtc_compiler.h"

#include <nvrtc.h>

#include <memory>

#include "engine/ir/error.h"

namespace tensord::cuda {
namespace {

void check(nvrtcResult status, const char* what) {
  if (status != NVRTC_SUCCESS) {
    throw Error(ErrorCode::Internal, std::string(what) + " failed: " + nvrtcGetErrorString(status));
  }
}

struct ProgramDeleter {
  void operator()(_nvrtcProgram* p) const { nvrtcDestroyProgram(&p); }
};

}  // namespace

NvrtcOutput nvrtc_compile(const NvrtcRequest& request) {
  nvrtcProgram raw = nullptr;
  check(nvrtcCreateProgram(&raw, request.source.c_str(), request.name.c_str(), 0, nullptr, nullptr),
        "nvrtcCreateProgram");
  std::unique_ptr<_nvrtcProgram, ProgramDeleter> program(raw);

  std::vector<std::string> options = request.options;
  options.push_back(std::string("--gpu-architecture=") + (request.cubin ? "sm_" : "compute_") +
                    std::to_string(request.arch));
  std::vector<const char*> argv;
  for (const std::string& o : options) argv.push_back(o.c_str());
  const nvrtcResult status = nvrtcCompileProgram(raw, static_cast<int>(argv.size()), argv.data());

  NvrtcOutput out;
  size_t log_size = 0;
  check(nvrtcGetProgramLogSize(raw, &log_size), "nvrtcGetProgramLogSize");
  out.log.resize(log_size);
  check(nvrtcGetProgramLog(raw, out.log.data()), "nvrtcGetProgramLog");
  while (!out.log.empty() && (out.log.back() == '\0' || out.log.back() == '\n')) {
    out.log.pop_back();
  }
  if (status != NVRTC_SUCCESS) {
    throw Error(ErrorCode::Internal, "NVRTC could not compile " + request.name + " (" +
                                         nvrtcGetErrorString(status) + "):\n" + out.log);
  }
  size_t size = 0;
  if (request.cubin) {
    check(nvrtcGetCUBINSize(raw, &size), "nvrtcGetCUBINSize");
    out.image.resize(size);
    check(nvrtcGetCUBIN(raw, out.image.data()), "nvrtcGetCUBIN");
  } else {
    check(nvrtcGetPTXSize(raw, &size), "nvrtcGetPTXSize");
    out.image.resize(size);
    check(nvrtcGetPTX(raw, out.image.data()), "nvrtcGetPTX");
    while (!out.image.empty() && out.image.back() == '\0') out.image.pop_back();
  }
  return out;
}

int nvrtc_version() {
  int major = 0, minor = 0;
  check(nvrtcVersion(&major, &minor), "nvrtcVersion");
  return major * 1000 + minor * 10;
}

}  // namespace tensord::cuda
