// Shared objects of a session that may only be destroyed on the thread that opened it.
#pragma once

#include <atomic>
#include <cstdio>
#include <memory>
#include <thread>
#include <utility>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#endif

namespace tensord::detail {

// Says once per process, whatever the object's type, that a session's objects are kept.
inline void warn_kept_off_thread() {
  static std::atomic<bool> warned{false};
  if (!warned.exchange(true)) {
    std::fputs(
        "tensord: a session's objects were released on a thread other than the one that "
        "opened it; they are kept until the process exits (release a session's arrays and "
        "the session on its own thread)\n",
        stderr);
  }
}

// A session's state, tensors, profiles and functions hold KJ capabilities and an event loop
// bound to the thread that connected; destroying them on another thread would run that loop's
// code there (KJ aborts, or worse). That happens in Python, where the last reference to an
// array or session can go on any thread (another thread's `del`, the interpreter's exit). Such
// an object is kept instead, with its connection, until the process ends; the first time, a
// warning on stderr says so.
template <class T, class... Args>
std::shared_ptr<T> make_thread_owned(std::thread::id owner, Args&&... args) {
  return std::shared_ptr<T>(new T(std::forward<Args>(args)...), [owner](T* object) {
    if (std::this_thread::get_id() == owner) {
      delete object;
      return;
    }
#if defined(__SANITIZE_ADDRESS__)
    __lsan_ignore_object(object);  // kept on purpose
#endif
    warn_kept_off_thread();
  });
}

}  // namespace tensord::detail
