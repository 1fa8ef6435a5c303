// The compiled-kernel cache with the real host compiler: disk entries shared between caches
// (as between daemons), corrupt entries rebuilt, options that change the key, failures.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <thread>

#include "tests/unit/fusion/fusion_support.h"

using namespace tensord;
using namespace tensord::fusion_test;
using ir::Attr;
using ir::Op;
namespace fs = std::filesystem;

namespace {

TestGraph graph_of(ir::ValueRef* out) {
  TestGraph g;
  ir::ValueRef x = g.input({16, 64});
  ir::ValueRef s = g.add(Op::log_softmax, {x}, {{Attr::axis, int64_t{-1}}});
  *out = g.add(Op::mul, {g.add(Op::exp, {s}), g.scalar(2)});
  return g;
}

std::vector<fs::path> files(const std::string& dir, const std::string& ext) {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() == ext) out.push_back(e.path());
  }
  return out;
}

}  // namespace

TEST_CASE("a second cache on the same directory compiles nothing", "[cache]") {
  TempDir dir;
  ir::ValueRef y;
  TestGraph g = graph_of(&y);
  std::vector<float> first;
  {
    FusedEngine a(dir.path());
    first = run(a.engine, g, {y})[0];
    CHECK(a.kernels->stats().compiles == 1);
    CHECK(a.kernels->stats().misses >= 1);
    run(a.engine, g, {y});  // plan cache hit: the kernel cache is not even asked
    CHECK(a.kernels->stats().compiles == 1);
  }
  CHECK(files(dir.path(), ".so").size() == 1);
  FusedEngine b(dir.path());
  CHECK(max_rel_diff(run(b.engine, g, {y})[0], first) == 0);
  CHECK(b.kernels->stats().compiles == 0);
  CHECK(b.kernels->stats().disk_hits >= 1);
}

TEST_CASE("a truncated or corrupt cache file is ignored and rebuilt", "[cache]") {
  TempDir dir;
  ir::ValueRef y;
  TestGraph g = graph_of(&y);
  std::vector<float> want;
  {
    FusedEngine a(dir.path());
    want = run(a.engine, g, {y})[0];
  }
  const fs::path so = files(dir.path(), ".so").at(0);
  for (int damage = 0; damage < 2; ++damage) {
    if (damage == 0) {
      fs::resize_file(so, fs::file_size(so) / 3);
    } else {
      std::ofstream(so, std::ios::trunc) << "not an ELF file";
    }
    FusedEngine b(dir.path());
    CHECK(max_rel_diff(run(b.engine, g, {y})[0], want) == 0);
    CHECK(b.kernels->stats().corrupt == 1);
    CHECK(b.kernels->stats().compiles == 1);
  }
  FusedEngine c(dir.path());  // the rebuilt entry is whole again
  run(c.engine, g, {y});
  CHECK(c.kernels->stats().compiles == 0);
}

TEST_CASE("compiler options are part of the key", "[cache]") {
  TempDir dir;
  ir::ValueRef y;
  TestGraph g = graph_of(&y);
  {
    FusedEngine a(dir.path());
    run(a.engine, g, {y});
  }
  cache::KernelCacheOptions options{dir.path(), {}};
  options.compiler.flags.push_back("-fno-tree-vectorize");
  auto kernels = std::make_shared<cache::KernelCache>(options);
  cpu::CpuBackend backend(1, kernels);
  engine::Engine e(backend);
  run(e, g, {y});
  CHECK(kernels->stats().compiles == 1);
  CHECK(files(dir.path(), ".so").size() == 2);
}

TEST_CASE("tuning flags go to the compiler only when it accepts them", "[cache]") {
  // Accepted: the default compiler is GCC (the one that built us), which has both flags.
  cache::KernelCacheOptions options{"", {}};
  options.compiler.tuning = {"-mmove-max=256", "-mstore-max=256"};
  cache::KernelCache accepting(options);
  const std::vector<std::string> with = accepting.flags();
  CHECK(std::find(with.begin(), with.end(), "-mmove-max=256") != with.end());
  CHECK(accepting.identity().find("-mstore-max=256") != std::string::npos);
  // Refused: a flag no compiler knows is left out, and kernels still compile.
  options.compiler.tuning = {"-mno-such-tuning-flag"};
  auto refusing = std::make_shared<cache::KernelCache>(options);
  CHECK(refusing->flags() == options.compiler.flags);
  ir::ValueRef y;
  TestGraph g = graph_of(&y);
  cpu::CpuBackend backend(1, refusing);
  engine::Engine e(backend);
  run(e, g, {y});
  CHECK(refusing->stats().compiles == 1);
}

TEST_CASE("two caches writing the same entry at once both succeed", "[cache]") {
  TempDir dir;
  ir::ValueRef y;
  TestGraph g = graph_of(&y);
  std::vector<float> r1, r2;
  {
    FusedEngine a(dir.path());
    FusedEngine b(dir.path());
    std::thread t([&] { r1 = run(a.engine, g, {y})[0]; });
    r2 = run(b.engine, g, {y})[0];
    t.join();
  }
  CHECK(max_rel_diff(r1, r2) == 0);
  CHECK(files(dir.path(), ".so").size() == 1);  // renamed into place; no temporaries left
  for (const auto& e : fs::directory_iterator(dir.path())) {
    CHECK(e.path().filename().string().rfind("tmp-", 0) != 0);
  }
}

TEST_CASE("a compiler that fails gives an Internal error with its message", "[cache]") {
  cache::KernelCacheOptions options;
  options.compiler.command = "/nonexistent/c++";
  auto kernels = std::make_shared<cache::KernelCache>(options);
  cpu::CpuBackend backend(1, kernels);
  // As tensord-replay runs it: the compile error fails the run.
  engine::EngineOptions strict;
  strict.unfused_on_compile_error = false;
  engine::Engine e(backend, strict);
  ir::ValueRef y;
  TestGraph g = graph_of(&y);
  try {
    run(e, g, {y});
    FAIL("no error");
  } catch (const Error& err) {
    CHECK(err.code() == ErrorCode::Internal);
    CHECK(std::string(err.what()).find("/nonexistent/c++") != std::string::npos);
  }
  // The engine stays usable: eager needs no compiler.
  CHECK(run(e, g, {y}, engine::CompileMode::Eager).size() == 1);
  // As the daemon runs it: unfused (tests/unit/exec/test_compile_fallback.cpp).
  engine::Engine lenient(backend);
  CHECK(run(lenient, g, {y}).size() == 1);
  CHECK(lenient.stats().unfused_after_compile_error == 1);
}

TEST_CASE("the default cache directory follows XDG", "[cache]") {
  const char* old = std::getenv("XDG_CACHE_HOME");
  const std::string saved = old ? old : "";
  setenv("XDG_CACHE_HOME", "/some/where", 1);
  CHECK(cache::default_cache_dir() == "/some/where/tensord");
  if (old)
    setenv("XDG_CACHE_HOME", saved.c_str(), 1);
  else
    unsetenv("XDG_CACHE_HOME");
}

// GCC and Clang define __SANITIZE_ADDRESS__ when this test is built with -fsanitize=address,
// as the whole tree is with -DTENSORD_SANITIZE=ON.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitizerBuild = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kSanitizerBuild = true;
#else
constexpr bool kSanitizerBuild = false;
#endif
#else
constexpr bool kSanitizerBuild = false;
#endif

TEST_CASE("a sanitizer build instruments the kernels it generates", "[cache]") {
  const std::vector<std::string> flags = cache::default_compiler_flags();
  const bool sanitize_flag =
      std::find(flags.begin(), flags.end(), "-fsanitize=address,undefined") != flags.end();
  CHECK(sanitize_flag == kSanitizerBuild);
  // The object itself: an instrumented one calls ASan's runtime (dynamic symbols __asan_*).
  TempDir dir;
  ir::ValueRef y;
  TestGraph g = graph_of(&y);
  FusedEngine a(dir.path());
  run(a.engine, g, {y});
  const std::vector<fs::path> objects = files(dir.path(), ".so");
  REQUIRE(objects.size() == 1);
  std::ifstream in(objects[0], std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK((bytes.find("__asan_") != std::string::npos) == kSanitizerBuild);
}
