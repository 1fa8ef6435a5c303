// Runs the CUDA C of the reduce, scan and sort families on the CPU: the generated sources
// (written by sort_emulation_dump.cpp at build time) are compiled as host C++ with the CUDA
// keywords below, and each block is emulated by blockDim std::threads meeting at a barrier
// for __syncthreads (shared memory: function statics, one block at a time). The kernels loop
// over their work with grid strides, so one or two blocks cover any size. This checks the
// kernels' logic (networks, chunk combining, NaN and tie rules) without a GPU; NVRTC itself is
// checked by sort_sources_test.cpp and real runs by the conformance table.
#pragma once

#include <algorithm>
#include <barrier>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "engine/ir/half.h"
// __device__, __forceinline__, the bit casts and the _rn arithmetic the formulas use too.
#include "tests/unit/cuda/formulas_host_shim.h"

using std::max;
using std::min;

struct EmuDim3 {
  unsigned x = 1, y = 1, z = 1;
};
inline thread_local EmuDim3 threadIdx, blockIdx;
inline EmuDim3 blockDim, gridDim;
inline std::barrier<>* emu_barrier = nullptr;
inline void __syncthreads() {
  emu_barrier->arrive_and_wait();
}

#define __global__
#define __launch_bounds__(x)
#define __shared__ static

// Worker threads kept across launches (creating a thousand threads per block would dominate
// the test's time): run(block, job) runs job(t) on workers 0 .. block-1 and waits for them.
class EmuPool {
 public:
  ~EmuPool() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    for (std::thread& w : workers_) w.join();
  }
  void run(unsigned block, const std::function<void(unsigned)>& job) {
    std::unique_lock lock(mutex_);
    while (workers_.size() < block) {
      const auto i = static_cast<unsigned>(workers_.size());
      workers_.emplace_back([this, i] { work(i); });
    }
    job_ = &job;
    active_ = block;
    remaining_ = block;
    ++generation_;
    wake_.notify_all();
    done_.wait(lock, [&] { return remaining_ == 0; });
  }

 private:
  void work(unsigned i) {
    unsigned seen = 0;
    for (;;) {
      const std::function<void(unsigned)>* job = nullptr;
      {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, [&] { return stop_ || (generation_ != seen && i < active_); });
        if (stop_) return;
        seen = generation_;
        job = job_;
      }
      (*job)(i);
      std::lock_guard lock(mutex_);
      if (--remaining_ == 0) done_.notify_all();
    }
  }
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  std::vector<std::thread> workers_;
  const std::function<void(unsigned)>* job_ = nullptr;
  unsigned active_ = 0, remaining_ = 0, generation_ = 0;
  bool stop_ = false;
};

// One pool for every launch of the process (a static inside emu_launch would be one per lambda).
inline EmuPool& emu_pool() {
  static EmuPool pool;
  return pool;
}

// Runs f() as every thread of `grid` blocks of `block` threads, block after block.
template <class F>
void emu_launch(unsigned grid, unsigned block, F f) {
  EmuPool& pool = emu_pool();
  gridDim.x = grid;
  blockDim.x = block;
  for (unsigned b = 0; b < grid; ++b) {
    std::barrier<> bar(block);
    emu_barrier = &bar;
    const std::function<void(unsigned)> job = [&f, b](unsigned t) {
      blockIdx.x = b;
      threadIdx.x = t;
      f();
    };
    pool.run(block, job);
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
