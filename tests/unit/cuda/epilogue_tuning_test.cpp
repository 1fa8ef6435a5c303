// The CUDA matmul epilogue decisions kept on disk (engine/backends/cuda/epilogue_tuning.h),
// without a GPU: the two paths are host callbacks and the timer returns times the test chooses.
// One measurement per problem, the winner written under tune/ and run last, a second instance
// on the directory reading it without timing, a corrupt file ignored and rewritten, the identity
// in the key, refusals decided without timing, nothing decided while recording, and the shape
// class of a problem.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "engine/backends/cuda/epilogue_tuning.h"
#include "engine/cache/cache_file.h"

namespace tensord::cuda::test {
namespace {

namespace fs = std::filesystem;
using Ints = std::vector<int64_t>;

class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "td-cuda-epilogue-XXXXXX").string();
    if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

std::vector<std::string> files_in(const std::string& dir) {
  std::vector<std::string> out;
  if (!fs::exists(dir)) return out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
  return out;
}

// Two paths that record what ran last, and a timer that says the fused path takes `fused_s`.
struct Paths {
  double fused_s = 1, unfused_s = 2;
  bool refuse = false;
  std::string last;  // "fused" or "unfused": whose output is left
  int fused_calls = 0, unfused_calls = 0, timed = 0;
  std::function<bool()> fused = [this] {
    ++fused_calls;
    if (refuse) return false;
    last = "fused";
    return true;
  };
  std::function<void()> unfused = [this] {
    ++unfused_calls;
    last = "unfused";
  };
  CudaEpilogueTuning::Timer seconds = [this](const std::function<void()>& f) {
    ++timed;
    f();
    return last == "fused" ? fused_s : unfused_s;
  };
};

const std::string kProblem = "float32 b1 m17 k33 n19 a:N b:N bias_row+relu p0";

}  // namespace

TEST_CASE("cuda epilogue: measured once, stored, read back by a second instance", "[tuning]") {
  TempDir dir;
  CudaEpilogueTuning first(dir.path(), "H100|sm_90|132|cublasLt 130000");
  const std::string key = first.key(kProblem);
  Paths p;
  CHECK(first.run(key, kProblem, p.fused, p.unfused, p.seconds, true));
  CHECK(p.last == "fused");  // the winner runs last
  CHECK(p.timed == 4);       // two timed runs of each path
  CHECK(first.stats().measured == 1);
  REQUIRE(files_in(dir.path() + "/tune") == std::vector<std::string>{"cuda-" + key + ".txt"});
  const std::string text = cache::read_file(first.path(key));
  CHECK(text == "fused 1\n" + kProblem + "\n");
  CHECK(parse_epilogue_decision(text) == std::optional<bool>(true));

  // Remembered: no more timing in this instance.
  p.timed = 0;
  CHECK(first.run(key, kProblem, p.fused, p.unfused, p.seconds, true));
  CHECK(p.timed == 0);
  CHECK(first.stats().fused_runs == 2);

  // A second instance on the directory (a restarted daemon) reads it without measuring.
  CudaEpilogueTuning second(dir.path(), "H100|sm_90|132|cublasLt 130000");
  CHECK(second.key(kProblem) == key);
  Paths q;
  CHECK(second.run(key, kProblem, q.fused, q.unfused, q.seconds, true));
  CHECK(q.timed == 0);
  CHECK(q.unfused_calls == 0);
  CHECK(second.stats().measured == 0);
  CHECK(second.stats().from_disk == 1);
}

TEST_CASE("cuda epilogue: the slower fused path loses, ties go to fused", "[tuning]") {
  TempDir dir;
  CudaEpilogueTuning t(dir.path(), "id");
  Paths slow;
  slow.fused_s = 3;
  const std::string key = t.key(kProblem);
  CHECK_FALSE(t.run(key, kProblem, slow.fused, slow.unfused, slow.seconds, true));
  CHECK(slow.last == "unfused");
  CHECK(cache::read_file(t.path(key)).rfind("fused 0\n", 0) == 0);
  const std::string other = kProblem + " other";
  Paths tie;
  tie.fused_s = tie.unfused_s = 1;
  CHECK(t.run(t.key(other), other, tie.fused, tie.unfused, tie.seconds, true));
}

TEST_CASE("cuda epilogue: a corrupt or foreign file is ignored, measured again, rewritten",
          "[tuning]") {
  TempDir dir;
  CudaEpilogueTuning writer(dir.path(), "id");
  const std::string key = writer.key(kProblem);
  fs::create_directories(dir.path() + "/tune");
  for (const char* bad :
       {"", "fused", "fused 2\n", "fused 1 0\n", "block 0 steps 0\n", "\x01\x02"}) {
    INFO(bad);
    std::ofstream(writer.path(key), std::ios::trunc) << bad;
    CudaEpilogueTuning reader(dir.path(), "id");
    Paths p;
    p.fused_s = 5;  // unfused wins this time
    CHECK_FALSE(reader.run(key, kProblem, p.fused, p.unfused, p.seconds, true));
    CHECK(p.timed == 4);
    CHECK(reader.stats().from_disk == 0);
    CHECK(reader.stats().measured == 1);
    CHECK(cache::read_file(writer.path(key)) == "fused 0\n" + kProblem + "\n");
  }
  // No temporary files left behind by the atomic writes.
  CHECK(files_in(dir.path() + "/tune").size() == 1);
}

TEST_CASE("cuda epilogue: the key carries the device identity and the problem", "[tuning]") {
  CudaEpilogueTuning h100("d", "NVIDIA H100|sm_90|132|cublasLt 130000");
  CudaEpilogueTuning h200("d", "NVIDIA H200|sm_90|132|cublasLt 130000");
  CHECK(h100.key(kProblem) != h200.key(kProblem));
  CHECK(h100.key(kProblem) != h100.key(kProblem + "x"));
  CHECK(h100.path(h100.key(kProblem)) == "d/tune/cuda-" + h100.key(kProblem) + ".txt");
  CHECK(CudaEpilogueTuning("", "id").path("k").empty());
}

TEST_CASE("cuda epilogue: refusals are decided without timing; recordings decide nothing",
          "[tuning]") {
  TempDir dir;
  CudaEpilogueTuning t(dir.path(), "id");
  const std::string key = t.key(kProblem);
  Paths recording;
  CHECK_FALSE(t.run(key, kProblem, recording.fused, recording.unfused, recording.seconds, false));
  CHECK(recording.fused_calls == 0);  // nothing timed or tried while a graph is recorded
  CHECK(recording.last == "unfused");
  CHECK(t.stats().measured == 0);
  CHECK_FALSE(fs::exists(t.path(key)));

  Paths refused;
  refused.refuse = true;
  CHECK_FALSE(t.run(key, kProblem, refused.fused, refused.unfused, refused.seconds, true));
  CHECK(refused.timed == 0);
  CHECK(refused.last == "unfused");
  CHECK(parse_epilogue_decision(cache::read_file(t.path(key))) == std::optional<bool>(false));
}

TEST_CASE("cuda epilogue: decisions stay in memory without a directory or when it is read-only",
          "[tuning]") {
  CudaEpilogueTuning memory("", "id");
  Paths p;
  const std::string key = memory.key(kProblem);
  CHECK(memory.run(key, kProblem, p.fused, p.unfused, p.seconds, true));
  p.timed = 0;
  CHECK(memory.run(key, kProblem, p.fused, p.unfused, p.seconds, true));
  CHECK(p.timed == 0);

  // A path under a regular file cannot be a directory: nothing is written, nothing thrown.
  TempDir dir;
  std::ofstream(dir.path() + "/file") << "x";
  CudaEpilogueTuning blocked(dir.path() + "/file", "id");
  Paths q;
  CHECK(blocked.run(blocked.key(kProblem), kProblem, q.fused, q.unfused, q.seconds, true));
  CHECK(blocked.stats().measured == 1);
  q.timed = 0;
  CHECK(blocked.run(blocked.key(kProblem), kProblem, q.fused, q.unfused, q.seconds, true));
  CHECK(q.timed == 0);
}

TEST_CASE("cuda epilogue: a problem is a shape class, not a set of strides", "[tuning]") {
  const std::string e = "bias_row+relu";
  // (17, 33) @ (33, 19), row-major, and the same with a padded leading dimension: one class.
  const std::string plain =
      epilogue_problem(e, Ints{17, 33}, Ints{33, 1}, Ints{33, 19}, Ints{19, 1}, Ints{17, 19}, 0);
  CHECK(plain == "float32 b1 m17 k33 n19 a:N b:N bias_row+relu p0");
  CHECK(epilogue_problem(e, Ints{17, 33}, Ints{40, 1}, Ints{33, 19}, Ints{24, 1}, Ints{17, 19},
                         0) == plain);
  // A transposed operand, another precision, another epilogue, another size: other classes.
  const std::string at =
      epilogue_problem(e, Ints{17, 33}, Ints{1, 17}, Ints{33, 19}, Ints{19, 1}, Ints{17, 19}, 0);
  CHECK(at != plain);
  CHECK(at.find(" a:T b:N ") != std::string::npos);
  CHECK(epilogue_problem(e, Ints{17, 33}, Ints{33, 1}, Ints{33, 19}, Ints{19, 1}, Ints{17, 19},
                         1) != plain);
  CHECK(epilogue_problem("relu", Ints{17, 33}, Ints{33, 1}, Ints{33, 19}, Ints{19, 1}, Ints{17, 19},
                         0) != plain);
  CHECK(epilogue_problem(e, Ints{18, 33}, Ints{33, 1}, Ints{33, 19}, Ints{19, 1}, Ints{18, 19},
                         0) != plain);
  // A batch with b broadcast across it.
  const std::string batched =
      epilogue_problem(e, Ints{2, 7, 9}, Ints{63, 9, 1}, Ints{9, 5}, Ints{5, 1}, Ints{2, 7, 5}, 0);
  CHECK(batched == "float32 b2 m7 k9 n5 a:N b:Nb bias_row+relu p0");
  // A layout cuBLASLt cannot take keeps its exact strides.
  const std::string odd =
      epilogue_problem(e, Ints{7, 9}, Ints{18, 2}, Ints{9, 5}, Ints{5, 1}, Ints{7, 5}, 0);
  CHECK(odd.find("(7,9:18,2)") != std::string::npos);
}

}  // namespace tensord::cuda::test
