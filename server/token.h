// The daemon's token check, shared by Daemon.hello and the dashboard's API.
#pragma once

#include <string_view>

namespace tensord::server {

// Whether `given` is `expected`. Compares without an early exit, so response times do not
// reveal how much of a guess matched.
bool same_token(std::string_view expected, std::string_view given);

}  // namespace tensord::server
