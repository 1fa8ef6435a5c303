// Reproducers: a run whose generated kernel does not compile leaves a file the daemon names in
// its log (the run itself goes on unfused), and tensord-replay reruns it locally, where the
// compile error shows, or against a daemon.
#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "tests/integration/client/client_fixture.h"

using tensord::test::ClientFixture;
using tensord::test::DaemonOptions;
namespace fs = std::filesystem;

namespace {

struct Replay {
  int status = -1;
  std::string output;
};

Replay replay(const std::string& args) {
  const std::string bin = tensord::test::daemon_binary();
  const std::string command =
      bin.substr(0, bin.rfind('/') + 1) + "tensord-replay " + args + " 2>&1";
  Replay r;
  FILE* p = popen(command.c_str(), "r");
  REQUIRE(p != nullptr);
  char buf[512];
  while (fgets(buf, sizeof buf, p)) r.output += buf;
  const int status = pclose(p);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

struct TempDir {
  TempDir() {
    std::string t = (fs::temp_directory_path() / "tensord-repro-XXXXXX").string();
    REQUIRE(mkdtemp(t.data()) != nullptr);
    path = t;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string path;
};

}  // namespace

TEST_CASE("a kernel that does not compile leaves a reproducer that tensord-replay reruns",
          "[fusion]") {
  TempDir dir;
  const std::string repro = dir.path + "/repro";
  std::string file;
  {
    // The compiler runs, but every unit it is given fails.
    ClientFixture f(
        DaemonOptions::with_args({"--cache-dir", dir.path + "/cache", "--compiler-flags",
                                  "--no-such-flag", "--repro-dir", repro}));
    auto x = f.session.from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
    auto y = tensord::softmax(tensord::exp(x) * 2.0f, -1);
    // The run itself goes through unfused, with eager's values; explain says why.
    const std::vector<float> fused = y.to_vector<float>();
    const tensord::Explanation e = tensord::explain({tensord::softmax(tensord::exp(x) * 2.0f, -1)});
    INFO(e.text);
    CHECK(e.text.find("runs unfused: its fused kernels did not compile") != std::string::npos);
    f.session.set_compile_mode("eager");
    auto y2 = tensord::softmax(tensord::exp(x) * 2.0f, -1);
    CHECK(y2.to_vector<float>() == fused);
    REQUIRE(fs::exists(repro));
    for (const auto& entry : fs::directory_iterator(repro)) file = entry.path().string();
    REQUIRE(!file.empty());
    CHECK(file.ends_with(".json"));
    f.daemon.stop();
    CHECK(f.daemon.output().find(file) != std::string::npos);
  }

  Replay local = replay(file);
  CHECK(local.status == 0);
  CHECK(local.output.find("output 0: float32(2, 3)") != std::string::npos);

  Replay again = replay("--compiler /bin/false " + file);
  CHECK(again.status == 1);
  CHECK(again.output.find("error:") != std::string::npos);
  CHECK(replay("--compiler /bin/false --mode eager " + file).status == 0);

  {
    ClientFixture good(DaemonOptions::with_args({"--cache-dir", dir.path + "/cache"}));
    Replay remote = replay("--address " + good.daemon.address() + " " + file);
    CHECK(remote.status == 0);
    CHECK(remote.output.find("output 0: float32(2, 3)") != std::string::npos);
  }

  {
    // A compiler that does not run at all turns fusion off: runs still work, eagerly.
    ClientFixture none(DaemonOptions::with_args({"--compiler", "/nonexistent/c++"}));
    auto x = none.session.from_vector<float>({1, 2, 3}, {3});
    CHECK(tensord::softmax(tensord::exp(x), -1).to_vector<float>().size() == 3);
    CHECK(tensord::explain({tensord::exp(x) + 1.0f}).groups.empty());
    none.daemon.stop();
    CHECK(none.daemon.output().find("fusion is off") != std::string::npos);
  }

  std::ofstream(dir.path + "/bad.json") << "{\"tensord_reproducer\": 1, \"nodes\": 3}";
  CHECK(replay(dir.path + "/bad.json").status == 2);
  CHECK(replay("").status == 2);
}
