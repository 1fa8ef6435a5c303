// One CUDA block's threads as fibers on the calling thread, for the host emulation of CUDA
// kernels (movement_emulation.cpp, sort_emulation.h). Each fiber runs
// until it reaches a barrier or its end, then the next one runs; a round of all of them is one
// barrier, which is CUDA's rule as long as every thread of the block reaches the same barriers.
// Real threads did the same with a std::barrier, at about 0.4 s per launch of a 256-thread
// block on two cores (a thread start per CUDA thread, and every barrier a storm of futex wakes):
// two minutes of the emulated conformance table. On x86-64 a switch is a few instructions
// (block_fibers.cpp): glibc's swapcontext makes a system call each time (the signal mask), 43%
// of a profile of the table through emulated loop-IR kernels.
#pragma once

#if !defined(__x86_64__)
#include <ucontext.h>
#endif

#include <cstddef>
#include <functional>
#include <memory>
#include <vector>

namespace tensord::cuda::test {

class BlockFibers {
 public:
  BlockFibers() = default;
  BlockFibers(const BlockFibers&) = delete;
  BlockFibers& operator=(const BlockFibers&) = delete;

  // Runs `thread` once for each (x, y) below (bx, by), to its end. `resume(x, y)` is called
  // before thread (x, y) starts or continues: what the kernel reads as threadIdx is one
  // variable on this OS thread. An exception must not leave `thread`.
  void run(unsigned bx, unsigned by, const std::function<void(unsigned, unsigned)>& resume,
           const std::function<void()>& thread);

  // The kernel's __syncthreads (with `fibers` the running BlockFibers): back to the scheduler
  // until every other thread of the block got to a barrier or to its end.
  static void sync(void* fibers);

 private:
#if defined(__x86_64__)
  using Context = void*;  // the stack pointer a switch left
#else
  using Context = ucontext_t;
#endif
  struct Fiber {
    Context context{};
    std::unique_ptr<char[]> stack;
    bool done = false;
  };
  static void enter();  // a fiber's first frame
  void switch_to(Fiber& fiber);
  void back_to_scheduler(Fiber& fiber, bool finished);

  static constexpr size_t kStackBytes = size_t{256} << 10;
  std::vector<Fiber> fibers_;  // kept between launches, with their stacks
  size_t running_ = 0;
  const std::function<void()>* thread_ = nullptr;
  Context scheduler_{};
  // The scheduler's stack, for AddressSanitizer's fiber switches (unused without it).
  const void* scheduler_stack_ = nullptr;
  size_t scheduler_stack_bytes_ = 0;
};

}  // namespace tensord::cuda::test
