// Fusion through the daemon: compile modes, explain, the compiled-kernel cache shared by two
// daemons on one --cache-dir, and first runs that do not wait for the compiler.
#include <catch2/catch.hpp>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "tests/integration/client/client_fixture.h"

using tensord::test::ClientFixture;
using tensord::test::DaemonOptions;

namespace {

// A private cache directory per test, removed afterwards.
struct CacheDir {
  CacheDir() {
    std::string t = (std::filesystem::temp_directory_path() / "tensord-cache-XXXXXX").string();
    REQUIRE(mkdtemp(t.data()) != nullptr);
    path = t;
  }
  ~CacheDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  DaemonOptions daemon() const { return DaemonOptions::with_args({"--cache-dir", path}); }
  std::string path;
};

tensord::Tensor chain(tensord::Session& s) {
  std::vector<float> v(1000);
  for (size_t i = 0; i < v.size(); ++i) v[i] = std::sin(static_cast<float>(i)) * 3;
  auto x = s.from_vector<float>(v, {10, 100});
  auto y =
      tensord::tanh(tensord::exp(-(x * x)) * 2.0f + 1.0f) * 0.5f - tensord::sqrt(tensord::abs(x));
  return tensord::softmax(y, -1);
}

}  // namespace

TEST_CASE("compile modes: eager runs unfused, default fuses, results agree", "[fusion]") {
  CacheDir dir;
  ClientFixture f(dir.daemon());
  CHECK(f.session.stats().compile_mode == "default");
  tensord::Explanation fused = tensord::explain({chain(f.session)});
  CHECK(fused.mode == "default");
  CHECK(fused.groups.size() == 1);  // the chain feeds softmax's row kernel: one kernel
  CHECK(fused.steps == 1);
  CHECK_FALSE(fused.captured);
  std::vector<float> a = chain(f.session).to_vector<float>();

  f.session.set_compile_mode("eager");
  CHECK(f.session.stats().compile_mode == "eager");
  tensord::Explanation eager = tensord::explain({chain(f.session)});
  CHECK(eager.groups.empty());
  CHECK(eager.steps > 10);
  std::vector<float> b = chain(f.session).to_vector<float>();
  REQUIRE(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i)
    CHECK(std::fabs(a[i] - b[i]) <= 1e-6f + 1e-5f * std::fabs(b[i]));

  for (const char* m : {"reduce-overhead", "max-autotune"}) {
    f.session.set_compile_mode(m);
    CHECK(tensord::explain({chain(f.session)}).groups.size() == 1);
  }
}

TEST_CASE("an unknown compile mode is an InvalidGraph error and the session goes on", "[fusion]") {
  CacheDir dir;
  ClientFixture f(dir.daemon());
  try {
    f.session.set_compile_mode("turbo");
    FAIL("no error");
  } catch (const tensord::Error& e) {
    CHECK(e.code() == tensord::ErrorCode::InvalidGraph);
    CHECK(std::string(e.what()).find("turbo") != std::string::npos);
  }
  CHECK(f.session.stats().compile_mode == "default");
  CHECK(chain(f.session).to_vector<float>().size() == 1000);
}

TEST_CASE("explain names the fused ops, the boundaries and what was cached", "[fusion]") {
  CacheDir dir;
  ClientFixture f(dir.daemon());
  auto& s = f.session;
  auto x = s.from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  auto w = s.full({3, 3}, 0.5f);
  auto y = tensord::softmax(tensord::matmul(tensord::exp(x) + 1.0f, w), -1);
  tensord::Explanation e = tensord::explain({y});
  REQUIRE(e.groups.size() == 2);
  CHECK(e.groups[0].ops == std::vector<std::string>{"exp", "add"});
  CHECK_FALSE(e.plan_cached);
  CHECK_FALSE(e.kernels_cached);
  bool matmul = false;
  for (const auto& b : e.boundaries) matmul |= b.op == "matmul";
  CHECK(matmul);
  CHECK(e.text.find("boundary") != std::string::npos);
  tensord::Explanation again = tensord::explain({y});
  CHECK(again.plan_cached);
  CHECK(again.kernels_cached);
  auto before = s.stats().kernel_compiles;
  y.to_vector<float>();  // the run reuses what explain built
  CHECK(s.stats().kernel_compiles == before);
  CHECK_THROWS_AS(tensord::explain({}), tensord::Error);
}

TEST_CASE("a second daemon on the same cache directory compiles nothing", "[fusion]") {
  CacheDir dir;
  std::vector<float> first;
  {
    ClientFixture f(dir.daemon());
    first = chain(f.session).to_vector<float>();
    tensord::SessionStats st = f.session.stats();
    CHECK(st.kernel_compiles == 1);
    CHECK(st.kernel_misses == 1);
    CHECK(st.kernel_compile_ns > 0);
    // The CPU daemon has one cache, the host's, with the same figures.
    REQUIRE(st.kernel_caches.size() == 1);
    CHECK(st.kernel_caches[0].target == "host");
    CHECK(st.kernel_caches[0].misses == 1);
    CHECK(st.kernel_caches[0].compile_ns == st.kernel_compile_ns);
  }
  ClientFixture g(dir.daemon());
  CHECK(chain(g.session).to_vector<float>() == first);
  tensord::SessionStats st = g.session.stats();
  CHECK(st.kernel_compiles == 0);
  CHECK(st.kernel_disk_hits == 1);
}

TEST_CASE("with --background-compile on a first run does not wait for the compiler", "[fusion]") {
  CacheDir dir;
  // The real compiler behind a gate this test opens (or 20 s, so that a daemon that waits for
  // it fails the test rather than hanging it).
  const std::string gate = dir.path + "/gate", script = dir.path + "/gated-c++";
  std::ofstream(script) << "#!/bin/sh\n[ \"$1\" = --version ] && exec c++ --version\n"
                        << "n=0; while [ ! -e '" << gate << "' ] && [ $n -lt 2000 ]; do\n"
                        << "  sleep 0.01; n=$((n + 1)); done\nexec c++ \"$@\"\n";
  std::filesystem::permissions(script, std::filesystem::perms::owner_all);
  ClientFixture f(DaemonOptions::with_args(
      {"--cache-dir", dir.path + "/cache", "--compiler", script, "--background-compile", "on"}));
  auto& s = f.session;
  s.set_compile_mode("eager");
  const std::vector<float> eager = chain(s).to_vector<float>();
  s.set_compile_mode("default");
  const auto t0 = std::chrono::steady_clock::now();
  CHECK(chain(s).to_vector<float>() == eager);  // unfused, while the compiler waits
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(10));
  CHECK(s.stats().kernel_compiles == 0);

  std::ofstream(gate) << "open\n";
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (s.stats().kernel_compiles == 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  REQUIRE(s.stats().kernel_compiles == 1);
  // The compile is counted before its kernels load: explain waits for them (reporting them as
  // compiled), so that the run and the explanation after it see the fused plan.
  CHECK(tensord::explain({chain(s)}).groups.size() >= 1);
  const std::vector<float> fused = chain(s).to_vector<float>();
  for (size_t i = 0; i < fused.size(); ++i) CHECK(std::fabs(fused[i] - eager[i]) <= 1e-6f);
  tensord::Explanation e = tensord::explain({chain(s)});
  CHECK(e.groups.size() >= 1);
  CHECK(e.plan_cached);
  CHECK(e.kernels_cached);
}
