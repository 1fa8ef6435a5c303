// max-autotune on the CPU (engine/backends/cpu/launch_tuning.h): launch configurations are
// measured once per kernel and shape class, kept in the kernel cache's directory, and reused
// by a restarted backend without measuring again.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "engine/backends/cpu/launch_tuning.h"
#include "tests/unit/fusion/fusion_support.h"

using namespace tensord;
using namespace tensord::fusion_test;
using cpu::LaunchTuning;
using engine::CompileMode;
using ir::Attr;
using ir::Op;

namespace {

size_t files_in(const std::string& dir) {
  if (!std::filesystem::exists(dir)) return 0;
  size_t n = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) n += e.is_regular_file();
  return n;
}

}  // namespace

TEST_CASE("launch tuning: candidates, one measurement per key, reuse from disk", "[tuning]") {
  CHECK(LaunchTuning::candidates(1) == std::vector<int>{1});
  CHECK(LaunchTuning::candidates(2) == std::vector<int>{1, 2});
  CHECK(LaunchTuning::candidates(6) == std::vector<int>{1, 2, 4, 6});

  TempDir dir;
  std::vector<int> ran;
  auto run = [&](int threads) { ran.push_back(threads); };
  LaunchTuning first(dir.path(), "compiler A|cpu X");
  const std::string key = first.key("td_0123", 4000, 4096, 4);
  // Shapes within a factor of two share a class; other thread counts and machines do not.
  CHECK(first.key("td_0123", 2048, 4096, 4) == key);  // [2048, 4096): one class
  CHECK(first.key("td_0123", 4096, 4096, 4) != key);
  CHECK(first.key("td_0123", 4000, 4096, 2) != key);
  CHECK(first.key("td_0124", 4000, 4096, 4) != key);
  CHECK(LaunchTuning(dir.path(), "compiler A|cpu Y").key("td_0123", 4000, 4096, 4) != key);

  const int chosen = first.threads_for(key, 4, run);
  CHECK((chosen == 1 || chosen == 2 || chosen == 4));
  CHECK(ran.size() == 1 + 3 * 3);  // a warm-up, then three runs of each candidate
  CHECK(first.stats().measured == 1);
  ran.clear();
  CHECK(first.threads_for(key, 4, run) == chosen);  // remembered: nothing runs
  CHECK(ran.empty());

  LaunchTuning restarted(dir.path(), "compiler A|cpu X");
  CHECK(restarted.threads_for(key, 4, run) == chosen);
  CHECK(ran.empty());
  CHECK(restarted.stats().from_disk == 1);
  CHECK(restarted.stats().measured == 0);

  // A file that does not parse is measured again (and rewritten).
  for (const auto& e : std::filesystem::directory_iterator(dir.path() + "/tune")) {
    std::ofstream(e.path()) << "garbage";
  }
  LaunchTuning after_corruption(dir.path(), "compiler A|cpu X");
  after_corruption.threads_for(key, 4, run);
  CHECK(after_corruption.stats().measured == 1);
  CHECK(LaunchTuning(dir.path(), "compiler A|cpu X").find(key).has_value());

  // One thread: nothing to choose, nothing timed.
  ran.clear();
  LaunchTuning memory_only("", "id");
  CHECK(memory_only.threads_for(memory_only.key("td_1", 10, 10, 1), 1, run) == 1);
  CHECK(ran.empty());
}

TEST_CASE("max-autotune measures a new fused kernel once and a restart reuses the winner",
          "[tuning][fusion]") {
  TempDir dir;
  TestGraph g;
  ir::ValueRef x = g.input({512, 300});
  ir::ValueRef y = g.add(Op::softmax, {x}, {{Attr::axis, int64_t{-1}}});
  const std::vector<ir::ValueRef> outs{y};
  std::vector<std::vector<float>> eager;
  {
    FusedEngine f(dir.path());
    eager = run(f.engine, g, outs, CompileMode::Eager);
    CHECK(max_rel_diff(run(f.engine, g, outs, CompileMode::Default)[0], eager[0]) <= 1e-6);
    CHECK(f.backend.launch_tuning()->stats().measured == 0);  // default mode times nothing

    const auto tuned = run(f.engine, g, outs, CompileMode::MaxAutotune);
    CHECK(max_rel_diff(tuned[0], eager[0]) <= 1e-6);
    CHECK(f.backend.launch_tuning()->stats().measured == 1);
    CHECK(files_in(dir.path() + "/tune") == 1);
    run(f.engine, g, outs, CompileMode::MaxAutotune);
    CHECK(f.backend.launch_tuning()->stats().measured == 1);  // the second run reuses it
  }
  FusedEngine restarted(dir.path());
  const auto again = run(restarted.engine, g, outs, CompileMode::MaxAutotune);
  CHECK(max_rel_diff(again[0], eager[0]) <= 1e-6);
  CHECK(restarted.backend.launch_tuning()->stats().measured == 0);
  CHECK(restarted.backend.launch_tuning()->stats().from_disk == 1);
}
