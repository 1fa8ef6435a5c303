// Files in a cache directory that several daemons (threads, processes, containers) share:
// each writer works under a name no one else can hold, and renames the finished file into
// place, so a reader sees the old file, the new one or none, never half of one.
#pragma once

#include <string>
#include <string_view>

namespace tensord::cache {

// The whole file; "" when it cannot be read.
std::string read_file(const std::string& path);

// Creates a new empty file named `prefix` + six random characters + `suffix`, exclusively
// (mkstemps): the name is the caller's alone even across PID namespaces sharing the
// directory, where a pid and a counter are not. Returns its path, or "" on failure.
std::string create_private_file(const std::string& prefix, const std::string& suffix);

// Writes `bytes` to a private file beside `path` and renames it onto `path`. False (and
// nothing left behind) when the directory is full or read-only.
bool write_file_atomically(const std::string& path, std::string_view bytes);

}  // namespace tensord::cache
