#include "server/options.h"

#include <algorithm>
#include <charconv>

namespace tensord::server {
namespace {

std::optional<uint64_t> parse_uint(std::string_view s) {
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

// "1048576", "512M", "4G": binary units.
std::optional<uint64_t> parse_bytes(std::string_view s) {
  int shift = 0;
  if (!s.empty()) {
    switch (s.back()) {
      case 'K':
        shift = 10;
        break;
      case 'M':
        shift = 20;
        break;
      case 'G':
        shift = 30;
        break;
      case 'T':
        shift = 40;
        break;
      default:
        break;
    }
  }
  if (shift != 0) s.remove_suffix(1);
  auto v = parse_uint(s);
  if (!v || *v > (UINT64_MAX >> shift)) return std::nullopt;
  return *v << shift;
}

bool valid_listen_address(std::string_view a) {
  if (a.starts_with("unix:")) return a.size() > 5;
  if (a.starts_with("tcp:")) {
    size_t colon = a.rfind(':');
    return colon > 4 && parse_uint(a.substr(colon + 1)).value_or(65536) < 65536;
  }
  return false;
}

CommandLine fail(std::string message) {
  return CommandLine{{}, "tensord: " + message + "\nRun 'tensord --help' for the options.\n", 2};
}

// The setting a flag that takes on|off switches; null for other flags.
bool* on_off_setting(Options& o, std::string_view flag) {
  if (flag == "--background-compile") return &o.background_compile;
  if (flag == "--inline-small-runs") return &o.inline_small_runs;
  if (flag == "--cuda-programmatic-launch") return &o.cuda_programmatic_launch;
  return nullptr;
}

}  // namespace

std::string usage() {
  return R"(Usage: tensord [options]

Runs the tensord daemon in the foreground until SIGINT or SIGTERM.

Options:
  --listen ADDRESS        unix:PATH or tcp:HOST:PORT; repeat to listen on several.
                          Default: unix:$XDG_RUNTIME_DIR/tensord.sock, else
                          unix:/tmp/tensord-$UID.sock
  --device auto|cpu|cuda  the device to run on (default auto: every usable GPU, else
                          the CPU, logging why)
  --threads N             CPU worker threads (default: one per hardware thread)
  --time-slice-ms MS      how long one session's run goes on while another session waits
                          before it pauses between two steps for the other's queued work
                          (default 10; 0: runs never pause, sessions take turns by run)
  --log-level LEVEL       error, warn, info or debug (default info)
  --token TOKEN           clients must present this token (default: $TENSORD_TOKEN;
                          none when unset)
  --max-tensor-bytes N    the largest tensor accepted, e.g. 1073741824 or 1G
                          (default: the device's memory)
  --session-memory-limit N  the bytes of live tensors one session may hold, e.g. 8G;
                          an upload or run past it fails with a quota error and the
                          others go on (default: no limit)
  --cache-dir DIR         compiled fused kernels (default: $XDG_CACHE_HOME/tensord, else
                          ~/.cache/tensord; "none": in memory only)
  --compiler CMD          the host C++ compiler for fused kernels (default: c++)
  --compiler-flags FLAGS  its flags, space-separated (default: -O3 -march=native
                          -fno-math-errno -shared -fPIC); GCC's copy width
                          (-mmove-max, -mstore-max) follows when it accepts them
  --background-compile on|off  on (default): a new graph's first runs go unfused while
                          its fused kernels compile on a background thread, and later
                          runs are fused; off: its first run waits for the compiler
  --inline-small-runs on|off  on (default): a run of a few thousand elements that
                          arrives while the CPU device's worker idles runs on the
                          event loop, without two thread hand-offs; off: every run
                          queues for the worker
  --cuda-programmatic-launch on|off  on (default): on a GPU of compute capability 9.0
                          or later, generated kernels are launched programmatically
                          (each may start while the one before it finishes); off:
                          plain launches, to compare
  --repro-dir DIR         where runs that fail inside the engine leave a reproducer for
                          tensord-replay (default: the cache directory's repro/)
  --dashboard ADDRESS     serve the web dashboard and its JSON API over HTTP, e.g.
                          tcp:127.0.0.1:8077 (port 0: any free port; the address is
                          printed). Off by default; with --token the API asks for it too
  --dashboard-dir DIR     the dashboard's built page (default: share/tensord/dashboard
                          beside the binary's folder, else the build's profiler_ui/dist)
  --help                  print this help and exit
  --version               print the version and exit
)";
}

std::string default_listen_address(const char* xdg_runtime_dir, unsigned uid) {
  if (xdg_runtime_dir != nullptr && *xdg_runtime_dir != '\0') {
    return std::string("unix:") + xdg_runtime_dir + "/tensord.sock";
  }
  return "unix:/tmp/tensord-" + std::to_string(uid) + ".sock";
}

CommandLine parse_command_line(int argc, const char* const* argv, std::string_view env_token,
                               std::string_view default_listen) {
  CommandLine cl;
  Options& o = cl.options;
  o.token = std::string(env_token);
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "--help" || arg == "-h") return CommandLine{{}, usage(), 0};
    if (arg == "--version") return CommandLine{{}, "tensord " TENSORD_VERSION "\n", 0};

    // "--flag value" or "--flag=value".
    std::string_view flag = arg;
    std::optional<std::string_view> value;
    if (size_t eq = arg.find('='); arg.starts_with("--") && eq != std::string_view::npos) {
      flag = arg.substr(0, eq);
      value = arg.substr(eq + 1);
    }
    auto take_value = [&]() -> std::optional<std::string_view> {
      if (value) return value;
      if (i + 1 < argc) return std::string_view(argv[++i]);
      return std::nullopt;
    };

    if (flag == "--listen" || flag == "--device" || flag == "--threads" || flag == "--log-level" ||
        flag == "--token" || flag == "--max-tensor-bytes" || flag == "--time-slice-ms" ||
        flag == "--session-memory-limit" || on_off_setting(o, flag) != nullptr) {
      auto v = take_value();
      if (!v) return fail(std::string(flag) + " needs a value");
      if (flag == "--listen") {
        if (!valid_listen_address(*v)) {
          return fail("bad --listen address '" + std::string(*v) +
                      "': expected unix:PATH or tcp:HOST:PORT");
        }
        o.listen.emplace_back(*v);
      } else if (flag == "--device") {
        if (*v != "auto" && *v != "cpu" && *v != "cuda") {
          return fail("bad --device '" + std::string(*v) + "': expected auto, cpu or cuda");
        }
        o.device = std::string(*v);
      } else if (flag == "--threads") {
        auto n = parse_uint(*v);
        if (!n || *n < 1 || *n > 4096) {
          return fail("bad --threads '" + std::string(*v) + "': expected 1 to 4096");
        }
        o.threads = static_cast<int>(*n);
      } else if (flag == "--time-slice-ms") {
        auto n = parse_uint(*v);
        if (!n || *n > 60'000) {
          return fail("bad --time-slice-ms '" + std::string(*v) + "': expected 0 to 60000");
        }
        o.time_slice_ms = static_cast<int>(*n);
      } else if (flag == "--log-level") {
        auto level = log_level_from_name(*v);
        if (!level) {
          return fail("bad --log-level '" + std::string(*v) +
                      "': expected error, warn, info or debug");
        }
        o.log_level = *level;
      } else if (bool* setting = on_off_setting(o, flag)) {
        if (*v != "on" && *v != "off") {
          return fail("bad " + std::string(flag) + " '" + std::string(*v) +
                      "': expected on or off");
        }
        *setting = *v == "on";
      } else if (flag == "--token") {
        o.token = std::string(*v);
      } else if (flag == "--session-memory-limit") {
        auto n = parse_bytes(*v);
        if (!n || *n == 0) {
          return fail("bad --session-memory-limit '" + std::string(*v) +
                      "': expected a positive byte count such as 8589934592 or 8G");
        }
        o.session_memory_limit = *n;
      } else {
        auto n = parse_bytes(*v);
        if (!n || *n == 0) {
          return fail("bad --max-tensor-bytes '" + std::string(*v) +
                      "': expected a positive byte count such as 1073741824 or 1G");
        }
        o.max_tensor_bytes = *n;
      }
    } else if (flag == "--cache-dir" || flag == "--compiler" || flag == "--compiler-flags" ||
               flag == "--repro-dir" || flag == "--dashboard" || flag == "--dashboard-dir") {
      auto v = take_value();
      if (!v || v->empty()) return fail(std::string(flag) + " needs a value");
      if (flag == "--dashboard") {
        if (!valid_listen_address(*v)) {
          return fail("bad --dashboard address '" + std::string(*v) +
                      "': expected tcp:HOST:PORT or unix:PATH");
        }
        o.dashboard = std::string(*v);
      } else if (flag == "--dashboard-dir") {
        o.dashboard_dir = std::string(*v);
      } else if (flag == "--cache-dir") {
        o.cache_dir = std::string(*v);
      } else if (flag == "--repro-dir") {
        o.repro_dir = std::string(*v);
      } else if (flag == "--compiler") {
        o.compiler = std::string(*v);
      } else {
        o.compiler_flags.clear();
        for (size_t p = 0; p < v->size();) {
          const size_t q = std::min(v->find(' ', p), v->size());
          if (q > p) o.compiler_flags.emplace_back(v->substr(p, q - p));
          p = q + 1;
        }
      }
    } else {
      return fail("unknown argument '" + std::string(arg) + "'");
    }
  }
  if (o.listen.empty()) o.listen.emplace_back(default_listen);
  return cl;
}

}  // namespace tensord::server
