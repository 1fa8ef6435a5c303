// max-autotune's decision logic for CUDA (engine/backends/cuda/launch_tuning.h), without a
// GPU: the candidates, how each resolves to a grid and block, the key, the file format, the
// choice of the fastest, one measurement per key and the reuse of a decision from disk.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "engine/backends/cuda/launch_tuning.h"
#include "engine/ir/error.h"

namespace tensord::cuda::test {
namespace {

class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "td-cuda-tune-XXXXXX").string();
    if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

size_t files_in(const std::string& dir) {
  if (!std::filesystem::exists(dir)) return 0;
  size_t n = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) n += e.is_regular_file();
  return n;
}

}  // namespace

TEST_CASE("cuda launch candidates: the default first, row kernels keep their block", "[tuning]") {
  const std::vector<LaunchChoice> pointwise = launch_candidates(false);
  REQUIRE(pointwise.size() == 7);
  CHECK(pointwise.front() == LaunchChoice{0, 0});
  for (size_t i = 1; i < pointwise.size(); ++i) {
    CHECK((pointwise[i].block == 128 || pointwise[i].block == 256));  // within launch bounds
    CHECK(pointwise[i].steps > 0);
  }
  const std::vector<LaunchChoice> rows = launch_candidates(true);
  REQUIRE(rows.size() == 4);
  CHECK(rows.front() == LaunchChoice{0, 0});
  for (const LaunchChoice& c : rows) CHECK(c.block == 0);  // a block size reorders a sum
  for (const LaunchChoice& c : rows) CHECK(fits(c, true));
  for (const LaunchChoice& c : pointwise) CHECK(fits(c, false));
  CHECK_FALSE(fits({128, 4}, true));  // a file naming a block for a row kernel is not used
  CHECK(fits({128, 4}, false));
}

TEST_CASE("cuda launch choices resolve against the launch's size", "[tuning]") {
  const LaunchDims fallback{132 * 8, 256};
  CHECK(resolve_launch({0, 0}, fallback, 1 << 24, 1) == fallback);
  // One element per thread: every element gets its own thread.
  CHECK(resolve_launch({128, 1}, fallback, 1000, 1) == LaunchDims{8, 128});
  CHECK(resolve_launch({256, 4}, fallback, 1 << 20, 1) == LaunchDims{1024, 256});
  CHECK(resolve_launch({256, 16}, fallback, 10, 1) == LaunchDims{1, 256});
  // Rows: 8 threads per row, a block of 256 takes 32 rows per pass.
  CHECK(resolve_launch({0, 1}, {10, 256}, 1000, 8) == LaunchDims{32, 256});
  CHECK(resolve_launch({0, 4}, {10, 256}, 1000, 8) == LaunchDims{8, 256});
  // A whole block per row: one row per pass.
  CHECK(resolve_launch({0, 4}, {10, 512}, 1000, 512) == LaunchDims{250, 512});
  // The grid fits a kernel launch however large the work.
  CHECK(resolve_launch({128, 1}, fallback, int64_t{1} << 50, 1).grid == 2147483647u);
  CHECK_THROWS_AS(resolve_launch({128, 1}, fallback, 0, 1), Error);
  CHECK_THROWS_AS(resolve_launch({128, 1}, fallback, 10, 0), Error);
  CHECK_THROWS_AS(resolve_launch({512, 1}, fallback, 10, 1), Error);
  CHECK_THROWS_AS(resolve_launch({100, 1}, fallback, 10, 1), Error);
}

TEST_CASE("cuda launch decision files: format and strict parsing", "[tuning]") {
  for (const LaunchChoice& c : launch_candidates(false)) {
    CHECK(parse_choice(format_choice(c)) == c);
  }
  CHECK(format_choice({128, 4}) == "block 128 steps 4\n");
  CHECK_FALSE(parse_choice("").has_value());
  CHECK_FALSE(parse_choice("threads 4\n").has_value());  // the CPU's format
  CHECK_FALSE(parse_choice("block 128\n").has_value());
  CHECK_FALSE(parse_choice("block 128 steps 4 extra\n").has_value());
  CHECK_FALSE(parse_choice("block 512 steps 1\n").has_value());
  CHECK_FALSE(parse_choice("block 100 steps 1\n").has_value());
  CHECK_FALSE(parse_choice("block -32 steps 1\n").has_value());
  CHECK_FALSE(parse_choice("block 128 steps 0\n").has_value());
  CHECK_FALSE(parse_choice("block 128 steps x\n").has_value());
}

TEST_CASE("cuda launch tuning picks the fastest, ties to the earlier", "[tuning]") {
  CHECK(fastest({3.0, 1.0, 2.0}) == 1);
  CHECK(fastest({1.0, 1.0, 2.0}) == 0);
  CHECK(fastest({5.0}) == 0);
  CHECK_THROWS_AS(fastest({}), Error);
}

TEST_CASE("cuda launch tuning measures a key once and a restart reads the winner", "[tuning]") {
  TempDir dir;
  const std::vector<LaunchChoice> cands = launch_candidates(false);
  CudaLaunchTuning first(dir.path(), "sm_90 nvrtc 13000|H100|132");
  const std::string key = first.key("td_0123456789abcdef", 1 << 20, 1);
  // Shapes within a factor of two share a decision; other identities and kernels do not.
  CHECK(first.key("td_0123456789abcdef", (1 << 20) + 5, 1) == key);
  CHECK(first.key("td_0123456789abcdef", 1 << 21, 1) != key);
  CHECK(first.key("td_0123456789abcdef", 1 << 20, 8) != key);
  CHECK(first.key("td_fedcba9876543210", 1 << 20, 1) != key);
  CHECK(CudaLaunchTuning(dir.path(), "sm_80 nvrtc 13000|A100|108")
            .key("td_0123456789abcdef", 1 << 20, 1) != key);

  int timed = 0;
  const auto seconds = [&](const LaunchChoice& c) {
    ++timed;
    return c == LaunchChoice{128, 4} ? 1.0 : 2.0;
  };
  CHECK(first.choice_for(key, cands, seconds) == LaunchChoice{128, 4});
  CHECK(timed == static_cast<int>(cands.size()));
  CHECK(first.choice_for(key, cands, seconds) == LaunchChoice{128, 4});
  CHECK(timed == static_cast<int>(cands.size()));  // remembered: nothing timed again
  CHECK(first.stats().measured == 1);
  REQUIRE(files_in(dir.path() + "/tune") == 1);
  CHECK(std::filesystem::path(first.path(key)).filename().string().rfind("cuda-", 0) == 0);
  std::ifstream in(first.path(key));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(text == "block 128 steps 4\n");

  CudaLaunchTuning restarted(dir.path(), "sm_90 nvrtc 13000|H100|132");
  CHECK(restarted.choice_for(key, cands, seconds) == LaunchChoice{128, 4});
  CHECK(timed == static_cast<int>(cands.size()));
  CHECK(restarted.stats().from_disk == 1);
  CHECK(restarted.stats().measured == 0);

  // A corrupt file is ignored and measured again (and rewritten).
  {
    std::ofstream out(first.path(key), std::ios::trunc);
    out << "block 999 steps";
  }
  CudaLaunchTuning after_corruption(dir.path(), "sm_90 nvrtc 13000|H100|132");
  CHECK_FALSE(after_corruption.find(key).has_value());
  CHECK(after_corruption.choice_for(key, cands, seconds) == LaunchChoice{128, 4});
  CHECK(after_corruption.stats().measured == 1);
  CHECK(CudaLaunchTuning(dir.path(), "sm_90 nvrtc 13000|H100|132").find(key).has_value());
}

TEST_CASE("cuda launch tuning without a directory keeps decisions in memory", "[tuning]") {
  CudaLaunchTuning memory("", "id");
  CHECK(memory.path("k").empty());
  const auto seconds = [](const LaunchChoice& c) { return c.steps == 16 ? 0.5 : 1.0; };
  CHECK(memory.choice_for("k", launch_candidates(true), seconds) == LaunchChoice{0, 16});
  CHECK(memory.find("k") == LaunchChoice{0, 16});
  CHECK_THROWS_AS(memory.choice_for("other", {}, seconds), Error);
}

}  // namespace tensord::cuda::test
