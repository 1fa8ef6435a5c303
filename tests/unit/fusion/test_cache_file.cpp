// Private and atomic files of a shared cache directory.
#include <catch2/catch.hpp>

#include <filesystem>
#include <set>
#include <thread>
#include <vector>

#include "engine/cache/cache_file.h"
#include "tests/unit/fusion/fusion_support.h"

using namespace tensord;
namespace fs = std::filesystem;

TEST_CASE("private files never share a name, across threads", "[cache]") {
  fusion_test::TempDir dir;
  constexpr int kThreads = 8, kEach = 50;
  std::vector<std::vector<std::string>> names(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) {
        names[t].push_back(cache::create_private_file(dir.path() + "/tmp-key-", ".cpp"));
      }
    });
  }
  for (auto& t : threads) t.join();
  std::set<std::string> all;
  for (const auto& v : names) {
    for (const std::string& n : v) {
      CHECK(n.size() > 4);
      CHECK(n.substr(n.size() - 4) == ".cpp");
      all.insert(n);
    }
  }
  CHECK(all.size() == size_t{kThreads * kEach});
}

TEST_CASE("an atomic write replaces the file whole and leaves no temporaries", "[cache]") {
  fusion_test::TempDir dir;
  const std::string path = dir.path() + "/entry";
  REQUIRE(cache::write_file_atomically(path, "first"));
  REQUIRE(cache::write_file_atomically(path, std::string(1 << 20, 'x')));
  CHECK(cache::read_file(path) == std::string(1 << 20, 'x'));
  size_t entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir.path())) ++entries;
  CHECK(entries == 1);
}

TEST_CASE("an atomic write into a missing directory fails without throwing", "[cache]") {
  CHECK_FALSE(cache::write_file_atomically("/nonexistent-dir/entry", "bytes"));
  CHECK(cache::create_private_file("/nonexistent-dir/tmp-", ".cpp").empty());
  CHECK(cache::read_file("/nonexistent-dir/entry").empty());
}
