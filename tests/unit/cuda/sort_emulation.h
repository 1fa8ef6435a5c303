// Runs the CUDA C of the reduce, scan and sort families on the CPU: the generated sources
// (written by sort_emulation_dump.cpp at build time) are compiled as host C++ with the CUDA
// keywords below, and each block is emulated by blockDim fibers, a round of them per
// __syncthreads (block_fibers.h; shared memory: function statics, one block at a time). The
// kernels loop over their work with grid strides, so one or two blocks cover any size. This checks
// the kernels' logic (networks, chunk combining, NaN and tie rules) without a GPU; NVRTC itself is
// checked by sort_sources_test.cpp and real runs by the conformance table.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "engine/ir/half.h"
#include "tests/unit/cuda/block_fibers.h"
// __device__, __forceinline__, the bit casts and the _rn arithmetic the formulas use too.
#include "tests/unit/cuda/formulas_host_shim.h"

using std::max;
using std::min;

struct EmuDim3 {
  unsigned x = 1, y = 1, z = 1;
};
// One block runs at a time, its threads as fibers on one OS thread (block_fibers.h).
inline EmuDim3 threadIdx, blockIdx, blockDim, gridDim;
inline tensord::cuda::test::BlockFibers* emu_block = nullptr;
inline void __syncthreads() {
  tensord::cuda::test::BlockFibers::sync(emu_block);
}

#define __global__
#define __launch_bounds__(x)
#define __shared__ static

// One for every launch of the process, with its stacks (a static inside emu_launch would be one
// per lambda).
inline tensord::cuda::test::BlockFibers& emu_fibers() {
  static tensord::cuda::test::BlockFibers fibers;
  return fibers;
}

// Runs f() as every thread of `grid` blocks of `block` threads, block after block.
template <class F>
void emu_launch(unsigned grid, unsigned block, F f) {
  tensord::cuda::test::BlockFibers& fibers = emu_fibers();
  emu_block = &fibers;
  gridDim.x = grid;
  blockDim.x = block;
  for (unsigned b = 0; b < grid; ++b) {
    blockIdx.x = b;
    fibers.run(
        block, 1, [](unsigned x, unsigned) { threadIdx.x = x; }, [&f] { f(); });
  }
}

// Collects the first few mismatches of a run.
struct EmuFailures {
  int count = 0;
  std::string first;
  void add(const std::string& what) {
    if (count++ < 5) first += what + "\n";
  }
};
