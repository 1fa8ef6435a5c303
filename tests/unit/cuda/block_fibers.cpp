#include "tests/unit/cuda/block_fibers.h"

#if defined(__SANITIZE_ADDRESS__)
#define TD_FIBERS_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TD_FIBERS_ASAN 1
#endif
#endif
#ifdef TD_FIBERS_ASAN
#include <sanitizer/common_interface_defs.h>
#endif

namespace tensord::cuda::test {
namespace {

// AddressSanitizer must be told of every switch of stacks (else it reports the other stack's
// frames as overflows): before one, where to; after one, done (and where from).
void leaving(void** fake_stack, const void* to_stack, size_t to_bytes) {
#ifdef TD_FIBERS_ASAN
  __sanitizer_start_switch_fiber(fake_stack, to_stack, to_bytes);
#else
  (void)fake_stack, (void)to_stack, (void)to_bytes;
#endif
}
void arrived(void* fake_stack, const void** from_stack, size_t* from_bytes) {
#ifdef TD_FIBERS_ASAN
  __sanitizer_finish_switch_fiber(fake_stack, from_stack, from_bytes);
#else
  (void)fake_stack, (void)from_stack, (void)from_bytes;
#endif
}

// The BlockFibers whose fiber is starting: makecontext passes only ints.
thread_local BlockFibers* t_starting = nullptr;

}  // namespace

void BlockFibers::run(unsigned bx, unsigned by,
                      const std::function<void(unsigned, unsigned)>& resume,
                      const std::function<void()>& thread) {
  const size_t n = size_t{bx} * by;
  // Before any context is made: a ucontext_t points into itself and must not move after.
  if (fibers_.size() < n) fibers_.resize(n);
  for (size_t i = 0; i < n; ++i) {
    Fiber& f = fibers_[i];
    // Not zeroed: a fiber touches the pages it uses, a few of its 256 KiB.
    if (!f.stack) f.stack = std::make_unique_for_overwrite<char[]>(kStackBytes);
    getcontext(&f.context);
    f.context.uc_stack.ss_sp = f.stack.get();
    f.context.uc_stack.ss_size = kStackBytes;
    f.context.uc_link = &scheduler_;
    makecontext(&f.context, &BlockFibers::enter, 0);
    f.done = false;
  }
  thread_ = &thread;
  for (size_t live = n; live > 0;) {
    for (size_t i = 0; i < n; ++i) {
      if (fibers_[i].done) continue;
      running_ = i;
      resume(static_cast<unsigned>(i % bx), static_cast<unsigned>(i / bx));
      t_starting = this;
      switch_to(fibers_[i]);
      if (fibers_[i].done) --live;
    }
  }
  thread_ = nullptr;
}

void BlockFibers::sync(void* fibers) {
  auto& self = *static_cast<BlockFibers*>(fibers);
  self.back_to_scheduler(self.fibers_[self.running_], false);
}

void BlockFibers::enter() {
  BlockFibers& self = *t_starting;
  arrived(nullptr, &self.scheduler_stack_, &self.scheduler_stack_bytes_);
  (*self.thread_)();
  Fiber& f = self.fibers_[self.running_];
  f.done = true;
  self.back_to_scheduler(f, true);  // does not come back: run() makes the context anew
}

void BlockFibers::switch_to(Fiber& fiber) {
  void* fake_stack = nullptr;
  leaving(&fake_stack, fiber.stack.get(), kStackBytes);
  swapcontext(&scheduler_, &fiber.context);
  arrived(fake_stack, nullptr, nullptr);
}

void BlockFibers::back_to_scheduler(Fiber& fiber, bool finished) {
  void* fake_stack = nullptr;
  // A finished fiber's stack is dropped (nullptr): its frames are gone for good.
  leaving(finished ? nullptr : &fake_stack, scheduler_stack_, scheduler_stack_bytes_);
  swapcontext(&fiber.context, &scheduler_);
  arrived(fake_stack, &scheduler_stack_, &scheduler_stack_bytes_);
}

}  // namespace tensord::cuda::test
