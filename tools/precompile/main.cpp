// tensord-precompile: fills a kernel cache directory with the CUDA backend's hand-written kernels
// for a GPU architecture, on a machine without a GPU (engine/backends/cuda/precompile.h). A
// fleet of daemons started on that directory (or a copy of it) compiles none of them. Exit
// status 0 when every unit compiled or was cached, 1 when NVRTC rejected one, 2 for a bad
// command line.
#include <cstdio>
#include <iostream>
#include <stdexcept>
#include <thread>

#include "engine/backends/cuda/precompile.h"
#include "tools/precompile/options.h"

int main(int argc, char** argv) {
  using namespace tensord;
  precompile::Options o;
  try {
    o = precompile::parse(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const std::invalid_argument& e) {
    std::cerr << "tensord-precompile: " << e.what() << "\n" << precompile::kUsage;
    return 2;
  }
  try {
    cuda::CudaKernelCacheOptions cache_options;
    cache_options.dir = o.cache_dir;
    cache_options.arch = o.arch;
    cuda::CudaKernelCache cache(cache_options);
    std::printf("identity: %s\n", cache.identity().c_str());
    if (o.identity) return 0;
    const int jobs = o.jobs > 0 ? o.jobs : static_cast<int>(std::thread::hardware_concurrency());
    const std::vector<cuda::PrecompileUnit> units = cuda::family_kernel_units();
    const cuda::PrecompileResult r = cuda::precompile_units(cache, units, jobs, o.deadline_s);
    for (const std::string& e : r.errors) std::fprintf(stderr, "failed: %.2000s\n", e.c_str());
    cuda::write_manifest(cache, o.cache_dir, r);
    std::printf(
        "precompiled %zu family units for sm_%d into %s/cuda: %zu compiled, %zu cached, %zu "
        "failed, %zu left (deadline) in %.1f s on %d threads\n",
        units.size(), o.arch, o.cache_dir.c_str(), r.compiled, r.cached, r.failed, r.left,
        r.seconds, jobs);
    return r.failed > 0 ? 1 : 0;
  } catch (const std::exception& e) {
    std::cerr << "tensord-precompile: " << e.what() << "\n";
    return 1;
  }
}
