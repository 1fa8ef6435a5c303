#include "engine/cache/kernel_cache.h"

#include <dlfcn.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "engine/cache/cache_file.h"
#include "engine/cache/run_process.h"
#include "engine/ir/error.h"
#include "engine/ir/hash.h"

namespace tensord::cache {
namespace {

namespace fs = std::filesystem;

// The CPU the code is compiled for (-march=native): model and feature flags.
std::string cpu_identity() {
  std::ifstream in("/proc/cpuinfo");
  std::string line, model, flags;
  while (std::getline(in, line) && (model.empty() || flags.empty())) {
    if (model.empty() && line.rfind("model name", 0) == 0) model = line;
    if (flags.empty() && line.rfind("flags", 0) == 0) flags = line;
  }
  utsname u{};
  uname(&u);
  return std::string(u.machine) + "|" + model + "|" + codegen::hex64(codegen::text_hash(flags));
}

// 128 bits: FNV-1a and a murmur-mixed word hash of the same text.
std::string key_of(const std::string& text) {
  ir::WordHasher h;
  for (size_t i = 0; i < text.size(); i += 8) {
    uint64_t w = 0;
    for (size_t k = 0; k < 8 && i + k < text.size(); ++k) {
      w |= static_cast<uint64_t>(static_cast<unsigned char>(text[i + k])) << (8 * k);
    }
    h.add(w);
  }
  return codegen::hex64(codegen::text_hash(text)) + codegen::hex64(h.finish());
}

bool write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  return static_cast<bool>(out);
}

// The seal of a shared object: its size and hash. dlopen maps a truncated object without
// complaint and the process dies of SIGBUS on first touch, so nothing is opened unsealed.
std::string seal_of(const std::string& bytes) {
  return std::to_string(bytes.size()) + " " + codegen::hex64(codegen::text_hash(bytes)) + "\n";
}

}  // namespace

std::vector<std::string> default_compiler_flags() {
  // -ffp-contract=off: a fused a*b - c must round as eager's two operations do, not as one FMA.
  // -fno-trapping-math: no kernel reads the floating-point exception flags, and with them GCC
  // keeps floor, ceil, trunc and round scalar (one vrndscaless a lane: trunc of a million
  // floats 0.6 ms); results are the same, only flags raised on the way may differ.
  std::vector<std::string> flags{
      "-O3",     "-march=native", "-fno-math-errno", "-fno-trapping-math", "-ffp-contract=off",
      "-shared", "-fPIC"};
#ifdef TENSORD_SANITIZE_KERNELS
  // A sanitizer build instruments the kernels it generates as well: their loops (tails,
  // strides, broadcast indices, integer formulas) are where an out-of-bounds access or an
  // undefined shift would come from, and the buffers they touch come from the instrumented
  // allocator. The object links the same libasan/libubsan the daemon already has loaded (the
  // default compiler is the one that built it); the flags are part of identity(), so sanitized
  // objects never share a cache entry with plain ones.
  flags.insert(flags.end(), {"-fsanitize=address,undefined", "-fno-sanitize-recover=undefined",
                             "-fno-omit-frame-pointer"});
#endif
  return flags;
}

std::vector<std::string> default_tuning_flags() {
  __builtin_cpu_init();
  const char* bits = __builtin_cpu_supports("avx512f") ? "512"
                     : __builtin_cpu_supports("avx2")  ? "256"
                                                       : nullptr;
  if (bits == nullptr) return {};
  return {std::string("-mmove-max=") + bits, std::string("-mstore-max=") + bits};
}

std::string default_cache_dir() {
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/tensord";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/tensord";
  return {};
}

KernelCache::KernelCache(KernelCacheOptions options) : options_(std::move(options)) {
  dir_ = options_.dir;
  if (dir_.empty()) {
    std::string templ = (fs::temp_directory_path() / "tensord-kernels-XXXXXX").string();
    if (!mkdtemp(templ.data())) {
      throw Error(ErrorCode::Internal, "cannot create a directory for compiled kernels");
    }
    dir_ = templ;
    private_dir_ = true;
  } else {
    std::error_code ec;
    fs::create_directories(dir_, ec);
    if (ec) {
      throw Error(ErrorCode::Internal,
                  "cannot create the kernel cache directory " + dir_ + ": " + ec.message());
    }
  }
}

KernelCache::~KernelCache() {
  for (void* h : handles_) dlclose(h);
  if (private_dir_) {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
}

std::string KernelCache::version() {
  {
    std::lock_guard lock(mutex_);
    if (!version_.empty()) return version_;
  }
  // Without the lock: a compiler may take its time, and has() must answer meanwhile.
  ProcessResult v = run_process({options_.compiler.command, "--version"});
  const std::string line = v.status == 0 ? v.output.substr(0, v.output.find('\n')) : "unavailable";
  std::lock_guard lock(mutex_);
  if (version_.empty()) version_ = line.empty() ? "(no version)" : line;
  return version_;
}

const std::string& KernelCache::identity() {
  {
    std::lock_guard lock(mutex_);
    if (!identity_.empty()) return identity_;
  }
  // Computed without the lock (two threads may both compute it; they get the same), so that a
  // slow compiler does not hold up has(). Probed with the key (the first load, or a CUDA
  // backend's construction), not by compiler_available(), the daemon's check at startup.
  const std::string v = version();
  std::string id = options_.compiler.command + "|" + v + "|";
  std::vector<std::string> flags = options_.compiler.flags;
  if (v != "unavailable" && !options_.compiler.tuning.empty()) {
    std::vector<std::string> probe{options_.compiler.command};
    probe.insert(probe.end(), flags.begin(), flags.end());
    probe.insert(probe.end(), options_.compiler.tuning.begin(), options_.compiler.tuning.end());
    probe.insert(probe.end(), {"-fsyntax-only", "-x", "c++", "/dev/null"});
    if (run_process(probe).status == 0) {
      flags.insert(flags.end(), options_.compiler.tuning.begin(), options_.compiler.tuning.end());
    }
  }
  for (const std::string& f : flags) id += f + " ";
  for (const std::string& l : options_.compiler.libs) id += l + " ";
  id += "|";  // appends only: GCC 12 warns (-Wrestrict) on "|" + std::string
  id += cpu_identity();
  std::lock_guard lock(mutex_);
  if (identity_.empty()) {
    identity_ = std::move(id);
    flags_ = std::move(flags);
  }
  return identity_;
}

const std::vector<std::string>& KernelCache::flags() {
  identity();
  return flags_;
}

bool KernelCache::compiler_available() {
  return version() != "unavailable";
}

bool KernelCache::has(std::span<const codegen::EmittedKernel> kernels) const {
  std::lock_guard lock(mutex_);
  return std::all_of(kernels.begin(), kernels.end(),
                     [&](const codegen::EmittedKernel& k) { return loaded_.count(k.name) > 0; });
}

KernelCacheStats KernelCache::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

void* KernelCache::open(const std::string& path, std::span<const codegen::EmittedKernel> kernels,
                        std::vector<void*>& fns) {
  void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) return nullptr;
  fns.clear();
  for (const codegen::EmittedKernel& k : kernels) {
    void* f = dlsym(h, k.name.c_str());
    if (!f) {
      dlclose(h);
      return nullptr;
    }
    fns.push_back(f);
  }
  return h;
}

std::vector<void*> KernelCache::load(const codegen::Emitter& emitter,
                                     std::span<const codegen::EmittedKernel> kernels,
                                     std::string* failed_source) {
  const std::string id = identity();
  // The kernels not loaded yet, once each, in name order so the unit's text (and key) does
  // not depend on the order of a plan's groups.
  std::vector<codegen::EmittedKernel> missing;
  {
    std::lock_guard lock(mutex_);
    for (const codegen::EmittedKernel& k : kernels) {
      if (loaded_.count(k.name)) {
        ++stats_.memory_hits;
      } else if (std::none_of(missing.begin(), missing.end(),
                              [&](const auto& m) { return m.name == k.name; })) {
        missing.push_back(k);
      }
    }
    if (missing.empty()) return entry_points(kernels);
  }
  // The disk and the compiler without the lock: a compile in the background (the engine's
  // BackgroundCompiler) must not stall the device's worker looking up other kernels. Two
  // threads missing the same kernels both compile them; the second load wins, both handles
  // stay open until the cache closes.
  std::sort(missing.begin(), missing.end(),
            [](const auto& a, const auto& b) { return a.name < b.name; });
  const std::string source = emitter.unit(missing);
  const std::string key = key_of(source + "\n" + id);
  const std::string path = dir_ + "/" + key + ".so";
  std::vector<void*> fns;
  void* h = nullptr;
  bool corrupt = false;
  if (!private_dir_ && access(path.c_str(), F_OK) == 0) {
    if (read_file(path + ".seal") == seal_of(read_file(path))) h = open(path, missing, fns);
    corrupt = h == nullptr;
  }
  CompileResult compiled;
  if (!h) {
    compiled = compile(source, key);
    {
      std::lock_guard lock(mutex_);
      ++stats_.compiles;
      stats_.compile_ns += compiled.ns;
    }
    if (compiled.object.empty()) {
      if (failed_source) *failed_source = source;
      throw Error(ErrorCode::Internal, compiled.error);
    }
    h = open(compiled.object, missing, fns);
    std::error_code ec;
    if (!h) {
      const char* why = dlerror();  // read once: the call clears it
      fs::remove(compiled.object, ec);
      throw Error(ErrorCode::Internal,
                  "a compiled kernel did not load: " + std::string(why ? why : "unknown"));
    }
    // Loaded from its temporary name, so an earlier handle on `path` cannot shadow it.
    if (private_dir_) {
      fs::remove(compiled.object, ec);
    } else {
      // The seal goes in after the object, each renamed into place whole: a reader sees
      // either no seal, or a seal matching the object (a concurrent writer's object has
      // the same bytes).
      const std::string seal = seal_of(read_file(compiled.object));
      fs::rename(compiled.object, path, ec);
      if (ec) {
        fs::remove(compiled.object, ec);
      } else {
        write_file_atomically(path + ".seal", seal);  // none: a recompile next time
      }
    }
  }
  std::lock_guard lock(mutex_);
  if (compiled.object.empty()) {
    stats_.disk_hits += missing.size();
  } else {
    stats_.misses += missing.size();
  }
  if (corrupt) ++stats_.corrupt;
  handles_.push_back(h);
  for (size_t i = 0; i < missing.size(); ++i) loaded_[missing[i].name] = fns[i];
  return entry_points(kernels);
}

std::vector<void*> KernelCache::entry_points(
    std::span<const codegen::EmittedKernel> kernels) const {
  std::vector<void*> out;
  out.reserve(kernels.size());
  for (const codegen::EmittedKernel& k : kernels) out.push_back(loaded_.at(k.name));
  return out;
}

// Compiles `source` into a temporary shared object in the cache directory: its path, or "" and
// the compiler's message. Takes no lock: it touches only files of its own private name.
KernelCache::CompileResult KernelCache::compile(const std::string& source,
                                                const std::string& key) const {
  CompileResult result;
  // Private names: two caches in one process, or two daemons in containers whose pids
  // coincide, compile the same key at once without writing each other's files.
  const std::string src = create_private_file(dir_ + "/tmp-" + key + "-", ".cpp");
  if (src.empty() || !write_file(src, source)) {
    std::error_code ec;
    if (!src.empty()) fs::remove(src, ec);
    result.error = "cannot write a kernel source in " + dir_;
    return result;
  }
  const std::string obj = src.substr(0, src.size() - 4) + ".so";
  std::vector<std::string> argv{options_.compiler.command};
  argv.insert(argv.end(), flags_.begin(), flags_.end());  // set by identity(), called by load()
  argv.insert(argv.end(), {"-x", "c++", "-o", obj, src});
  argv.insert(argv.end(), options_.compiler.libs.begin(), options_.compiler.libs.end());
  const auto t0 = std::chrono::steady_clock::now();
  ProcessResult r = run_process(argv);
  result.ns = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0)
          .count());
  std::error_code ec;
  if (r.status != 0) {
    fs::remove(src, ec);
    fs::remove(obj, ec);
    result.error = "generated kernels failed to compile (" + options_.compiler.command +
                   "): " + r.output.substr(0, 2000);
    return result;
  }
  if (private_dir_) {
    fs::remove(src, ec);
  } else {
    fs::rename(src, dir_ + "/" + key + ".cpp", ec);  // kept beside the object, for reading
    if (ec) fs::remove(src, ec);
  }
  result.object = obj;
  return result;
}

}  // namespace tensord::cache
