// The daemon's command line.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "server/log.h"

namespace tensord::server {

struct Options {
  std::vector<std::string> listen;  // "unix:PATH" or "tcp:HOST:PORT"; never empty once parsed
  std::string device = "auto";      // auto, cpu or cuda
  int threads = 0;                  // CPU worker threads; 0: one per hardware thread
  int time_slice_ms = 10;           // scheduler::SchedulerOptions::time_slice; 0: no pauses
  LogLevel log_level = LogLevel::Info;
  std::string token;                  // empty: no authentication
  uint64_t max_tensor_bytes = 0;      // 0: the device's memory
  uint64_t session_memory_limit = 0;  // bytes of live tensors one session may hold; 0: none
  // Fused kernels: the cache directory ("" the default directory, "none" memory only) and
  // the host compiler (empty: engine/cache/kernel_cache.h's defaults).
  std::string cache_dir;
  std::string compiler;
  std::vector<std::string> compiler_flags;
  // A new graph's first runs go unfused while its kernels compile (engine::EngineOptions::
  // compile_in_background); off: the first run waits for the compiler.
  bool background_compile = true;
  // Small Session.run requests run on the event loop while the worker idles (server/
  // inline_runs.h); off: every run queues for the worker.
  bool inline_small_runs = true;
  // CUDA: generated kernels launched programmatically on compute capability 9.0+
  // (cuda::CudaBackendOptions::programmatic_launch).
  bool cuda_programmatic_launch = true;
  std::string repro_dir;  // reproducers of failed runs (default: <cache dir>/repro)
  // The web dashboard (server/dashboard.h): where it listens ("tcp:HOST:PORT" or "unix:PATH";
  // empty: no dashboard) and the folder of its built page (empty: found next to the binary).
  std::string dashboard;
  std::string dashboard_dir;
};

// What the command line asks for: run with `options`, or print `text` and exit with `exit_code`
// (--help, --version, or a usage error).
struct CommandLine {
  Options options;
  std::optional<std::string> text;
  int exit_code = 0;
};

// Parses argv. `env_token` is $TENSORD_TOKEN (a --token flag wins); `default_listen` is used
// when no --listen is given.
CommandLine parse_command_line(int argc, const char* const* argv, std::string_view env_token,
                               std::string_view default_listen);

// $XDG_RUNTIME_DIR/tensord.sock when that is set, else /tmp/tensord-$UID.sock, as unix:PATH.
std::string default_listen_address(const char* xdg_runtime_dir, unsigned uid);

std::string usage();

}  // namespace tensord::server
