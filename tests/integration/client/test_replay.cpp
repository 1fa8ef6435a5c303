// Reproducers: a run whose generated kernel does not compile leaves a file the daemon names in
// its log (the run itself goes on unfused), and tensord-replay reruns it locally, where the
// compile error shows, or against a daemon.
#include <catch2/catch.hpp>

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

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

// A host compiler for the daemon's kernels, at DIR/NAME: `action` runs on each generated source
// (`$a`) before c++ compiles it, as a compiler bug would strike (fail, or miscompile).
std::string compiler_wrapper(const std::string& dir, const std::string& name,
                             const std::string& action) {
  const std::string path = dir + "/" + name;
  std::ofstream(path) << "#!/bin/sh\n"
                         "for a in \"$@\"; do case \"$a\" in *.cpp)\n"
                      << action
                      << ";;\n"
                         "esac; done\n"
                         "exec c++ \"$@\"\n";
  fs::permissions(path, fs::perms::owner_all);
  return path;
}

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
    // explain names its plan's reproducer, for users who cannot read the daemon's log. (It may
    // be another file than `file`: explain's own plan may have been built, and failed, too.)
    const size_t named = e.text.find("(reproducer: ");
    REQUIRE(named != std::string::npos);
    const size_t from = named + std::string("(reproducer: ").size();
    const fs::path path = e.text.substr(from, e.text.find(')', from) - from);
    CHECK(path.parent_path() == fs::path(repro));
    CHECK(fs::exists(path));
    // Reproducers may hold the users' bytes: only the daemon's user reads them.
    CHECK((fs::status(repro).permissions() & (fs::perms::group_all | fs::perms::others_all)) ==
          fs::perms::none);
    CHECK((fs::status(file).permissions() & (fs::perms::group_all | fs::perms::others_all)) ==
          fs::perms::none);
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

TEST_CASE("tensord-replay --shrink finds a smaller graph that fails the same way", "[fusion]") {
  TempDir dir;
  // A compiler that fails on any kernel computing tanh, as a compiler bug would: the
  // reproducer holds the whole run, and shrinking should keep tanh and drop most of the rest.
  const std::string compiler =
      compiler_wrapper(dir.path, "cxx-without-tanh",
                       "if grep -qE '__builtin_tanh|td_vtanh\\(' \"$a\"; then\n"
                       "  echo 'internal compiler error: tanh' >&2; exit 1; fi");
  const std::string repro = dir.path + "/repro";
  std::string file;
  {
    ClientFixture f(DaemonOptions::with_args(
        {"--cache-dir", "none", "--compiler", compiler, "--repro-dir", repro}));
    auto x = f.session.from_vector<float>({-2, -1, 0, 1, 2, 3}, {2, 3});
    auto w = f.session.from_vector<float>({1, 2, 3}, {3});
    auto y = tensord::tanh(tensord::exp(x) * 2.0f + 1.0f) * 0.5f - tensord::sqrt(tensord::abs(x));
    auto z = tensord::sum(y * w + x, -1);
    CHECK(z.to_vector<float>().size() == 2);  // it ran, unfused
    REQUIRE(fs::exists(repro));
    for (const auto& entry : fs::directory_iterator(repro)) file = entry.path().string();
    REQUIRE(!file.empty());
  }
  const std::string small = dir.path + "/small.json";
  Replay shrunk = replay("--compiler " + compiler + " --shrink " + small + " " + file);
  INFO(shrunk.output);
  CHECK(shrunk.status == 1);
  CHECK(shrunk.output.find("shrinking") != std::string::npos);
  CHECK(shrunk.output.find("error: internal error") != std::string::npos);
  REQUIRE(fs::exists(small));
  std::stringstream text;
  text << std::ifstream(small).rdbuf();
  CHECK(text.str().find("\"tanh\"") != std::string::npos);
  CHECK(text.str().find("\"sqrt\"") == std::string::npos);
  CHECK(text.str().find("\"sum\"") == std::string::npos);
  // The shrunk reproducer fails as the whole one does, and runs with a working compiler.
  CHECK(replay("--compiler " + compiler + " " + small).status == 1);
  CHECK(replay(small).status == 0);
  CHECK(replay("--address unix:/nowhere --shrink " + small + " " + small).status == 2);
}

TEST_CASE("a reproducer's kept input bytes are what tensord-replay runs on") {
  TempDir dir;
  // x = [1, 2, 3, 4] and an index picked from it: index 9 fails, index 3 runs. Regenerated
  // values could not tell the two apart.
  auto file = [&](const std::string& name, const std::string& index_base64) {
    const std::string path = dir.path + "/" + name;
    std::ofstream(path) << R"({"tensord_reproducer": 1, "mode": "eager", "error": "",
 "inputs": [{"dtype": "float32", "shape": [4], "base64": "AACAPwAAAEAAAEBAAACAQA=="},
            {"dtype": "int64", "shape": [1], "base64": ")"
                        << index_base64 << R"("}],
 "nodes": [
  {"op": "input", "inputs": [],
   "attrs": {"index": {"int": 0}, "dtype": {"dtype": "float32"}, "shape": {"ints": [4]}}},
  {"op": "input", "inputs": [],
   "attrs": {"index": {"int": 1}, "dtype": {"dtype": "int64"}, "shape": {"ints": [1]}}},
  {"op": "index_select", "inputs": [[0, 0], [1, 0]], "attrs": {"axis": {"int": 0}},
   "at": "train.py:12"}],
 "outputs": [[2, 0]]})";
    return path;
  };
  const Replay out_of_range = replay(file("nine.json", "CQAAAAAAAAA="));
  INFO(out_of_range.output);
  CHECK(out_of_range.status == 1);
  CHECK(out_of_range.output.find("index 9 is out of bounds") != std::string::npos);
  CHECK(out_of_range.output.find("train.py:12") != std::string::npos);  // the user's line
  CHECK(replay(file("three.json", "AwAAAAAAAAA=")).status == 0);
  // Shrinking keeps the bytes of the inputs it keeps: the small file fails the same way.
  const Replay shrunk =
      replay("--shrink " + dir.path + "/nine-small.json " + dir.path + "/nine.json");
  CHECK(shrunk.status == 1);
  const Replay small = replay(dir.path + "/nine-small.json");
  CHECK(small.status == 1);
  CHECK(small.output.find("index 9 is out of bounds") != std::string::npos);
  {
    ClientFixture f;
    CHECK(replay("--address " + f.daemon.address() + " " + dir.path + "/nine.json").status == 1);
    CHECK(replay("--address " + f.daemon.address() + " " + dir.path + "/three.json").status == 0);
  }
  // Bytes that do not fit the input's type, or are not base64, make a bad file.
  CHECK(replay(file("short.json", "AwAAAA==")).status == 2);
  CHECK(replay(file("bad.json", "A*AAAAAAAAA=")).status == 2);
}

TEST_CASE("a fused kernel that crashes the daemon leaves a reproducer of its graph", "[fusion]") {
  TempDir dir;
  // A compiler that makes every generated kernel trap (SIGILL) on entry: a generator bug
  // that takes the process down, which no exception handler sees.
  const std::string compiler = compiler_wrapper(
      dir.path, "cxx-trap",
      "sed -i 's/^\\(extern \"C\" void td_[0-9a-f]*(.*) {\\)$/\\1 __builtin_trap();/' \"$a\"");
  // Compiled before the first run, and in the background while the first runs go unfused (the
  // daemon's default): then the crash comes at a later run, once the fused plan is in.
  for (const std::string background : {"off", "on"}) {
    INFO("--background-compile " << background);
    const std::string repro = dir.path + "/repro-" + background;
    std::string file;
    {
      ClientFixture f(DaemonOptions::with_args({"--cache-dir", dir.path + "/cache-" + background,
                                                "--compiler", compiler, "--repro-dir", repro,
                                                "--background-compile", background}));
      auto x = f.session.from_vector<float>({-2, -1, 0, 1, 2, 3}, {2, 3});
      bool died = false;
      for (int run = 0; run < 400 && !died; ++run) {
        auto y = tensord::tanh(x * 0.5f + 1.0f) - tensord::sqrt(tensord::abs(x));
        try {
          y.to_vector<float>();
          std::this_thread::sleep_for(std::chrono::milliseconds(25));
        } catch (const tensord::Error&) {
          died = true;  // the daemon died under the run
        }
      }
      REQUIRE(died);
      const tensord::test::DaemonExit exit = f.daemon.stop();
      CHECK_FALSE(exit.exited);
      CHECK(exit.code == SIGILL);  // the signal's own end: the handler let it through
      const std::string out = f.daemon.output();
      INFO(out);
      CHECK(out.find("fatal signal 4 while a fused plan ran; reproducer: ") != std::string::npos);
      REQUIRE(fs::exists(repro));
      for (const auto& entry : fs::directory_iterator(repro)) file = entry.path().string();
      REQUIRE(!file.empty());
      CHECK(fs::path(file).filename().string().starts_with("crash-"));
      CHECK(out.find(file) != std::string::npos);
      CHECK((fs::status(file).permissions() & (fs::perms::group_all | fs::perms::others_all)) ==
            fs::perms::none);
    }
    std::stringstream text;
    text << std::ifstream(file).rdbuf();
    CHECK(text.str().find("\"tanh\"") != std::string::npos);
    CHECK(text.str().find("a fatal signal") != std::string::npos);
    // The graph is fine with a working compiler, and crashes again with the trapping one.
    const Replay fine = replay(file);
    CHECK(fine.status == 0);
    CHECK(fine.output.find("output 0: float32(2, 3)") != std::string::npos);
    const Replay crashed = replay("--compiler " + compiler + " " + file);
    CHECK((crashed.status == -1 || crashed.status == 128 + SIGILL));
  }
}
