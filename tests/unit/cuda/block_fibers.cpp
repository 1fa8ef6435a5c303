#include "tests/unit/cuda/block_fibers.h"

#include <cstdint>

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

// The BlockFibers whose fiber is starting: a fiber's entry takes no argument.
thread_local BlockFibers* t_starting = nullptr;

#if defined(__x86_64__)
// td_fiber_switch(from, to): pushes the callee-saved registers and the SSE and x87 control
// words, leaves the stack pointer in *from, takes `to` as the stack pointer and pops the same
// from it. A fiber's stack starts as if it had switched away just before its entry function.
extern "C" void td_fiber_switch(void** from, void* to);
asm(R"(
  .text
  .p2align 4
  .type td_fiber_switch, @function
td_fiber_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  subq $8, %rsp
  stmxcsr (%rsp)
  fnstcw 4(%rsp)
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  ldmxcsr (%rsp)
  fldcw 4(%rsp)
  addq $8, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size td_fiber_switch, .-td_fiber_switch
)");

void make_context(void*& context, char* stack, size_t bytes, void (*entry)()) {
  // From the top, 16-byte aligned: a slot so that `entry` starts as if called (its stack
  // pointer 8 past a multiple of 16), its address for the switch's ret, six registers, the
  // control words (MXCSR's and x87's defaults).
  auto top = reinterpret_cast<uintptr_t>(stack + bytes) & ~uintptr_t{15};
  auto* words = reinterpret_cast<uint64_t*>(top) - 9;
  words[0] = 0x1F80 | (uint64_t{0x037F} << 32);
  for (int r = 1; r <= 6; ++r) words[r] = 0;
  words[7] = reinterpret_cast<uintptr_t>(entry);
  words[8] = 0;
  context = words;
}
void swap_context(void*& from, void* const& to) {
  td_fiber_switch(&from, to);
}
#else
void make_context(ucontext_t& context, char* stack, size_t bytes, void (*entry)()) {
  getcontext(&context);
  context.uc_stack.ss_sp = stack;
  context.uc_stack.ss_size = bytes;
  context.uc_link = nullptr;
  makecontext(&context, entry, 0);
}
void swap_context(ucontext_t& from, const ucontext_t& to) {
  swapcontext(&from, &to);
}
#endif

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
    make_context(f.context, f.stack.get(), kStackBytes, &BlockFibers::enter);
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
  swap_context(scheduler_, fiber.context);
  arrived(fake_stack, nullptr, nullptr);
}

void BlockFibers::back_to_scheduler(Fiber& fiber, bool finished) {
  void* fake_stack = nullptr;
  // A finished fiber's stack is dropped (nullptr): its frames are gone for good.
  leaving(finished ? nullptr : &fake_stack, scheduler_stack_, scheduler_stack_bytes_);
  swap_context(fiber.context, scheduler_);
  arrived(fake_stack, &scheduler_stack_, &scheduler_stack_bytes_);
}

}  // namespace tensord::cuda::test
