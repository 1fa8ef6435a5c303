// Batched NVRTC compiles (engine/backends/cuda/loop_ir_batch.h, CudaKernelCache::
// compile_together), without a device: how kernels are cut into programs, which kernels a plan
// loads, that one program's CUBIN is found under every member's own key (in memory, on disk, by
// a fresh cache and by another process on the directory), that a torn entry is rebuilt, and
// that a program NVRTC rejects stores nothing. Loading them is tensord_gpu_cuda_backend's.
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>

#include "engine/backends/cuda/cuda_ops.h"
#include "engine/backends/cuda/loop_ir_batch.h"
#include "engine/backends/cuda/loop_ir_launch.h"
#include "engine/ir/error.h"
#include "engine/ir/graph.h"
#include "engine/plan/layout.h"

extern char** environ;

namespace tensord::cuda::test {
namespace {

namespace fs = std::filesystem;

struct TempDir {
  std::string path =
      (fs::temp_directory_path() / ("tensord_batch_" + std::to_string(getpid()) + "_" +
                                    std::to_string(reinterpret_cast<uintptr_t>(this))))
          .string();
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

CudaKernelCacheOptions options_for(const std::string& dir) {
  CudaKernelCacheOptions o;
  o.dir = dir;
  o.arch = 90;
  return o;
}

// The loop-IR kernel of `op` over contiguous float32 operands of 1000 elements.
codegen::LoopKernel kernel_of(ir::Op op, int arity) {
  ir::Node node;
  node.op = op;
  auto value = [] {
    engine::TensorValue v;
    v.buffer = std::make_shared<engine::Buffer>(nullptr, 0);
    v.type = {ir::DType::Float32, {1000}};
    v.strides = {1};
    return v;
  };
  std::vector<engine::TensorValue> in, out{value()};
  for (int i = 0; i < arity; ++i) in.push_back(value());
  node.outputs = {out[0].type};
  std::vector<codegen::LoopKernel> kernels = loop_ir_kernels(node, in, out, 132);
  REQUIRE(kernels.size() == 1);
  return kernels[0];
}

// Six distinct kernels (the second process of the two-process test computes the same).
std::vector<codegen::LoopKernel> six_kernels() {
  return {kernel_of(ir::Op::neg, 1), kernel_of(ir::Op::exp, 1), kernel_of(ir::Op::sqrt, 1),
          kernel_of(ir::Op::add, 2), kernel_of(ir::Op::mul, 2), kernel_of(ir::Op::tanh, 1)};
}

const BatchOptions kTwoByThree{.threads = 2, .min_batch = 2, .max_batch = 16};

ino_t inode_of(const std::string& path) {
  struct stat st {};
  REQUIRE(stat(path.c_str(), &st) == 0);
  return st.st_ino;
}

}  // namespace

TEST_CASE("batch_sizes keeps the threads busy within the batch bounds") {
  using V = std::vector<size_t>;
  const BatchOptions two{.threads = 2, .min_batch = 4, .max_batch = 16};
  CHECK(batch_sizes(0, two).empty());
  CHECK(batch_sizes(3, two) == V{3});            // fewer than min_batch: one program
  CHECK(batch_sizes(7, two) == V{7});            // two programs would hold fewer than 4
  CHECK(batch_sizes(12, two) == V{6, 6});        // one per thread
  CHECK(batch_sizes(40, two) == V{14, 13, 13});  // max_batch decides
  const BatchOptions sixteen{.threads = 16, .min_batch = 4, .max_batch = 16};
  CHECK(batch_sizes(12, sixteen) == V{4, 4, 4});
  CHECK(batch_sizes(70, sixteen).size() == 16);
  size_t total = 0;
  for (size_t s : batch_sizes(70, sixteen)) {
    CHECK(s >= 4);
    CHECK(s <= 5);
    total += s;
  }
  CHECK(total == 70);
  CHECK_THROWS_AS(batch_sizes(4, BatchOptions{.threads = -1}), Error);
  CHECK_THROWS_AS(batch_sizes(4, BatchOptions{.min_batch = 0}), Error);
  CHECK_THROWS_AS(batch_sizes(4, BatchOptions{.min_batch = 8, .max_batch = 4}), Error);
}

TEST_CASE("plan_loop_kernels lists what the plan's kernel steps load, strided views included") {
  ir::Graph g;
  const ir::ValueRef x = g.add_input(0, ir::TensorType{ir::DType::Float32, {64, 32}});
  const ir::ValueRef w = g.add_input(1, ir::TensorType{ir::DType::Float32, {32, 8}});
  const ir::ValueRef t =
      g.add(ir::Op::permute, {x}, {{ir::Attr::dims, std::vector<int64_t>{1, 0}}});
  const ir::ValueRef n = g.add(ir::Op::neg, {t});  // reads a transposed view
  const ir::ValueRef e = g.add(ir::Op::exp, {n});
  const ir::ValueRef a = g.add(ir::Op::add, {e, t});
  const ir::ValueRef m =
      g.add(ir::Op::matmul,
            {a, g.add(ir::Op::permute, {a}, {{ir::Attr::dims, std::vector<int64_t>{1, 0}}})});
  const ir::ValueRef s = g.add(ir::Op::sum, {m}, {{ir::Attr::axes, std::vector<int64_t>{1}}});
  const ir::ValueRef y = g.add(ir::Op::matmul, {x, w});
  const engine::Plan plan = engine::build_plan(g, std::vector{s, y});
  const std::vector<codegen::LoopKernel> kernels = plan_loop_kernels(plan, 132);
  // neg, exp, add and sum; the matmuls are cuBLASLt's.
  REQUIRE(kernels.size() == 4);
  // neg's kernel is the one loop_ir_kernels gives for its operands as the executor binds them.
  ir::Node neg;
  neg.op = ir::Op::neg;
  const ir::TensorType type{ir::DType::Float32, {32, 64}};
  neg.outputs = {type};
  const auto nothing = std::make_shared<engine::Buffer>(nullptr, 0);
  const engine::TensorValue in{nothing, type, {1, 32}, 0, false};
  const engine::TensorValue out{nothing, type, engine::contiguous_layout(type.shape).strides, 0,
                                false};
  const std::vector<codegen::LoopKernel> expected = loop_ir_kernels(neg, {&in, 1}, {&out, 1}, 132);
  REQUIRE(expected.size() == 1);
  CHECK(loop_unit(kernels[0]).source == loop_unit(expected[0]).source);
  std::set<std::string> names;
  for (const codegen::LoopKernel& k : kernels) names.insert(loop_unit(k).names[0]);
  CHECK(names.size() == 4);
}

TEST_CASE("one NVRTC program per batch, each member found by its own key") {
  TempDir dir;
  CudaKernelCache cache(options_for(dir.path));
  const std::vector<codegen::LoopKernel> kernels = six_kernels();
  std::vector<codegen::LoopKernel> twice = kernels;
  twice.insert(twice.end(), kernels.begin(), kernels.end());  // repeats compile once
  const BatchReport report = compile_loop_kernels(cache, twice, kTwoByThree);
  CHECK(report.kernels == 6);
  CHECK(report.held == 0);
  CHECK(report.compiled == 6);
  CHECK(report.programs == 2);
  CHECK(report.failed == 0);
  CHECK(cache.stats().compiles == 2);
  CHECK(cache.stats().misses == 6);
  for (size_t i = 0; i < kernels.size(); ++i) {
    const LoopUnit unit = loop_unit(kernels[i]);
    INFO("kernel " << i << " " << unit.names[0]);
    CHECK(cache.holds(unit.source));
    const std::string image = cache.stored_image(unit.source);
    REQUIRE(!image.empty());
    CHECK(image.compare(0, 4,
                        "\x7f"
                        "ELF") == 0);
    CHECK(image.find(unit.names[0]) != std::string::npos);  // its entry point is in the CUBIN
    CHECK(fs::exists(cache.file_of(unit.source)));
  }
  // Batch-mates are one file under several names; the two programs are two files.
  const auto file = [&](size_t i) { return cache.file_of(loop_unit(kernels[i]).source); };
  CHECK(inode_of(file(0)) == inode_of(file(2)));
  CHECK(inode_of(file(3)) == inode_of(file(5)));
  CHECK(inode_of(file(0)) != inode_of(file(3)));
  size_t cubins = 0;
  for (const auto& e : fs::directory_iterator(dir.path + "/cuda")) {
    CHECK(e.path().extension() == ".cubin");  // no temporary left behind
    ++cubins;
  }
  CHECK(cubins == 6);

  // A restarted daemon on the directory: everything held, nothing compiled.
  CudaKernelCache again(options_for(dir.path));
  const BatchReport second = compile_loop_kernels(again, kernels, kTwoByThree);
  CHECK(second.held == 6);
  CHECK(second.compiled == 0);
  CHECK(second.programs == 0);
  CHECK(again.stats().compiles == 0);
  // A single-kernel precompile (tensord-precompile) finds the member's entry too.
  CHECK_FALSE(again.precompile(loop_unit(kernels[4]).source));
}

TEST_CASE("a cache without a directory keeps the batch's CUBINs in memory") {
  CudaKernelCache cache(options_for(""));
  const std::vector<codegen::LoopKernel> kernels = six_kernels();
  const BatchReport report =
      compile_loop_kernels(cache, kernels, BatchOptions{.threads = 1, .min_batch = 6});
  CHECK(report.programs == 1);
  for (const codegen::LoopKernel& k : kernels) {
    const LoopUnit unit = loop_unit(k);
    CHECK(cache.holds(unit.source));
    CHECK(cache.stored_image(unit.source).find(unit.names[0]) != std::string::npos);
    CHECK(cache.file_of(unit.source).empty());
  }
}

TEST_CASE("a torn combined entry is not held and is rebuilt") {
  TempDir dir;
  const std::vector<codegen::LoopKernel> kernels = six_kernels();
  {
    CudaKernelCache cache(options_for(dir.path));
    REQUIRE(compile_loop_kernels(cache, kernels, kTwoByThree).compiled == 6);
  }
  // Cut the first program's file short in place: all three of its names see the torn bytes.
  const std::string torn =
      CudaKernelCache(options_for(dir.path)).file_of(loop_unit(kernels[1]).source);
  const std::string whole = [&] {
    std::ifstream f(torn, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(f), {});
  }();
  {
    std::ofstream f(torn, std::ios::binary | std::ios::trunc);
    f << whole.substr(0, whole.size() / 2);
  }
  CudaKernelCache cache(options_for(dir.path));
  for (size_t i = 0; i < kernels.size(); ++i) {
    CHECK(cache.holds(loop_unit(kernels[i]).source) == (i >= 3));
  }
  CHECK(cache.stats().corrupt == 3);
  const BatchReport report = compile_loop_kernels(cache, kernels, kTwoByThree);
  CHECK(report.held == 3);
  CHECK(report.compiled == 3);
  CudaKernelCache fresh(options_for(dir.path));
  for (const codegen::LoopKernel& k : kernels) CHECK(fresh.holds(loop_unit(k).source));
  CHECK(fresh.stats().corrupt == 0);
}

TEST_CASE("a program NVRTC rejects stores nothing and is reported, not thrown") {
  TempDir dir;
  CudaKernelCache cache(options_for(dir.path));
  const std::string member = loop_unit(kernel_of(ir::Op::neg, 1)).source;
  const std::string members[] = {member};
  CHECK_THROWS_WITH(cache.compile_together("this is not CUDA C", members),
                    Catch::Contains("NVRTC could not compile"));
  CHECK_FALSE(cache.holds(member));
  CHECK_FALSE(fs::exists(cache.file_of(member)));
  const std::string bad = "this is not CUDA C either";
  const BatchReport report = compile_loop_kernels(cache, {}, BatchOptions{}, {&bad, 1});
  CHECK(report.programs == 0);
  REQUIRE(report.errors.size() == 1);
  CHECK_THAT(report.errors[0], Catch::Contains("NVRTC could not compile"));
}

// The second process of the next test (hidden: run only by it, through the tag).
TEST_CASE("batch child process", "[.batch-child]") {
  const char* dir = std::getenv("TENSORD_BATCH_TEST_DIR");
  REQUIRE(dir != nullptr);
  CudaKernelCache cache(options_for(dir));
  const BatchReport report = compile_loop_kernels(cache, six_kernels(), kTwoByThree);
  CHECK(report.held == 6);
  CHECK(report.compiled == 0);
  CHECK(cache.stats().compiles == 0);
}

TEST_CASE("the batch's disk layout serves another process on the directory") {
  TempDir dir;
  {
    CudaKernelCache cache(options_for(dir.path));
    REQUIRE(compile_loop_kernels(cache, six_kernels(), kTwoByThree).compiled == 6);
  }
  REQUIRE(setenv("TENSORD_BATCH_TEST_DIR", dir.path.c_str(), 1) == 0);
  std::string self = fs::read_symlink("/proc/self/exe").string();
  std::string tag = "[.batch-child]";
  char* argv[] = {self.data(), tag.data(), nullptr};
  pid_t pid = 0;
  REQUIRE(posix_spawn(&pid, self.c_str(), nullptr, nullptr, argv, environ) == 0);
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  unsetenv("TENSORD_BATCH_TEST_DIR");
}

}  // namespace tensord::cuda::test
