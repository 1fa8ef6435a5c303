// Every failure a client sees leaves the daemon as a kj::Exception whose description carries a
// tensord error code (protocol/wire_error.h). These helpers turn whatever was thrown into one.
#pragma once

#include <kj/exception.h>

#include <exception>
#include <utility>

namespace tensord::server {

// tensord::Error -> its encoding; an encoded or DISCONNECTED kj::Exception -> itself;
// std::bad_alloc -> out_of_memory; anything else -> internal (a daemon bug).
// Thread-safe: workers use it to reject promises of the event loop.
kj::Exception to_wire_exception(std::exception_ptr error);

// Runs `f`, rethrowing anything it throws as a wire exception.
template <typename F>
auto with_wire_errors(F&& f) -> decltype(f()) {
  try {
    return std::forward<F>(f)();
  } catch (...) {
    throw to_wire_exception(std::current_exception());
  }
}

}  // namespace tensord::server
