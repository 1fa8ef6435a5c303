// Precompiling a kernel cache without a GPU (engine/backends/cuda/precompile.h): what one cache
// compiled, another constructed as CudaBackend constructs its own (directory and the device's
// arch, default options) finds on disk without compiling; another arch does not; a torn file is
// rebuilt. And the loop-IR family's kernels asked for without a device, and the tool's flags.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "engine/backends/cuda/cuda_ops.h"
#include "engine/backends/cuda/loop_ir_launch.h"
#include "engine/backends/cuda/precompile.h"
#include "engine/ir/error.h"
#include "engine/plan/layout.h"
#include "tools/precompile/options.h"

namespace tensord::cuda::test {
namespace {

namespace fs = std::filesystem;

struct TempDir {
  std::string path =
      (fs::temp_directory_path() / ("tensord_precompile_" + std::to_string(getpid()) + "_" +
                                    std::to_string(reinterpret_cast<uintptr_t>(this))))
          .string();
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

std::string tiny(int k) {
  return "extern \"C\" __global__ void t" + std::to_string(k) +
         "(float* x) { x[threadIdx.x] += " + std::to_string(k) + ".0f; }\n";
}

size_t files_in(const std::string& dir) {
  size_t n = 0;
  for (const auto& e : fs::directory_iterator(dir)) n += e.path().extension() == ".cubin";
  return n;
}

// A node of `op` over float32 operands of `shape` (contiguous; no memory behind them: the
// family reads types and strides only).
struct NodeCase {
  ir::Node node;
  std::vector<engine::TensorValue> in, out;
};
NodeCase node_case(ir::Op op, int arity, const ir::Shape& shape, const ir::Shape& out_shape) {
  NodeCase c;
  c.node.op = op;
  auto value = [](const ir::Shape& s) {
    engine::TensorValue v;
    v.buffer = std::make_shared<engine::Buffer>(nullptr, 0);
    v.type = {ir::DType::Float32, s};
    v.strides = engine::contiguous_layout(s).strides;
    return v;
  };
  for (int i = 0; i < arity; ++i) c.in.push_back(value(shape));
  c.out.push_back(value(out_shape));
  c.node.outputs = {c.out[0].type};
  return c;
}

}  // namespace

TEST_CASE("a precompiled cache is found on disk by a cache made as on a device") {
  TempDir dir;
  const std::vector<PrecompileUnit> units = {
      {"test", tiny(1)}, {"test", tiny(2)}, {"test", tiny(1)}};
  CudaKernelCacheOptions options;
  options.dir = dir.path;
  options.arch = 90;
  CudaKernelCache builder(options);
  const PrecompileResult first = precompile_units(builder, units, 2);
  CHECK(first.compiled == 2);  // the duplicate text compiles once
  CHECK(first.cached == 0);
  CHECK(first.failed == 0);
  CHECK(builder.stats().compiles == 2);
  CHECK(files_in(dir.path + "/cuda") == 2);
  // The manifest: identity, then each unit's CUBIN relative to the directory, and they exist.
  write_manifest(builder, dir.path, first);
  std::ifstream manifest(dir.path + "/precompiled.txt");
  std::string line;
  REQUIRE(std::getline(manifest, line));
  CHECK(line == builder.identity());
  std::vector<std::string> listed;
  while (std::getline(manifest, line)) listed.push_back(line);
  REQUIRE(listed.size() == 2);
  for (const std::string& f : listed) {
    CHECK(f.rfind("cuda/", 0) == 0);
    CHECK(fs::exists(dir.path + "/" + f));
  }
  CHECK(dir.path + "/" + listed[0] == builder.file_of(tiny(1)));

  // CudaBackend's State: CudaKernelCacheOptions{kernel_cache_dir, arch}, default options.
  CudaKernelCache device_like(CudaKernelCacheOptions{dir.path, 90});
  CHECK(device_like.identity() == builder.identity());
  CHECK_FALSE(device_like.precompile(tiny(1)));
  CHECK_FALSE(device_like.precompile(tiny(2)));
  CHECK(device_like.stats().disk_hits == 2);
  CHECK(device_like.stats().compiles == 0);

  // Another architecture is another key: compiled again, beside the first.
  CudaKernelCache other_arch(CudaKernelCacheOptions{dir.path, 89});
  CHECK(other_arch.identity() != builder.identity());
  CHECK(other_arch.precompile(tiny(1)));
  CHECK(files_in(dir.path + "/cuda") == 3);

  // A torn file is counted and rebuilt, then found.
  for (const auto& e : fs::directory_iterator(dir.path + "/cuda")) fs::resize_file(e.path(), 10);
  CudaKernelCache again(CudaKernelCacheOptions{dir.path, 90});
  CHECK(again.precompile(tiny(2)));
  CHECK(again.stats().corrupt == 1);
  CHECK_FALSE(again.precompile(tiny(2)));
}

TEST_CASE("precompiling reports a source NVRTC rejects and needs a directory") {
  TempDir dir;
  CudaKernelCache cache(CudaKernelCacheOptions{dir.path, 90});
  const std::vector<PrecompileUnit> units = {{"broken", "extern \"C\" __global__ void b() { x; }"},
                                             {"test", tiny(3)}};
  const PrecompileResult r = precompile_units(cache, units, 1);
  CHECK(r.compiled == 1);
  CHECK(r.failed == 1);
  REQUIRE(r.errors.size() == 1);
  INFO(r.errors[0]);
  CHECK(r.errors[0].find("broken: ") == 0);
  CHECK(r.errors[0].find("NVRTC could not compile") != std::string::npos);

  CudaKernelCache in_memory(CudaKernelCacheOptions{});
  CHECK_THROWS_AS(precompile_units(in_memory, units, 1), Error);
}

TEST_CASE("a deadline leaves units uncompiled and says how many") {
  TempDir dir;
  CudaKernelCache cache(CudaKernelCacheOptions{dir.path, 90});
  std::vector<PrecompileUnit> units;
  for (int k = 0; k < 40; ++k) units.push_back({"test", tiny(k)});
  // Each compile takes milliseconds: a deadline of a microsecond stops after the first ones.
  const PrecompileResult r = precompile_units(cache, units, 1, 1e-6);
  CHECK(r.left > 0);
  CHECK(r.compiled + r.left == units.size());
}

TEST_CASE("loop-IR units with their kernels precompile several to a program, each by its key") {
  TempDir dir;
  std::vector<PrecompileUnit> units;
  for (auto [op, arity] : {std::pair{ir::Op::neg, 1},
                           {ir::Op::exp, 1},
                           {ir::Op::add, 2},
                           {ir::Op::mul, 2},
                           {ir::Op::sqrt, 1}}) {
    NodeCase c = node_case(op, arity, {7, 5}, {7, 5});
    const std::vector<codegen::LoopKernel> k = loop_ir_kernels(c.node, c.in, c.out, 132);
    REQUIRE(k.size() == 1);
    units.push_back({"loop-ir", loop_unit(k[0]).source, k[0]});
  }
  units.insert(units.begin() + 2, {"test", tiny(7)});  // a unit without a kernel cuts the run
  CudaKernelCache cache(CudaKernelCacheOptions{dir.path, 90});
  const PrecompileResult r = precompile_units(cache, units, 2, 0, /*batch=*/2);
  CHECK(r.compiled == 6);
  CHECK(r.failed == 0);
  CHECK(r.left == 0);
  CHECK(r.files.size() == 6);
  // Programs: {neg, exp}, {tiny}, {add, mul}, {sqrt}.
  CHECK(cache.stats().compiles == 4);
  CHECK(cache.stats().misses == 6);
  CHECK(files_in(dir.path + "/cuda") == 6);
  // A cache made as on a device finds every unit, batched or not, by its own key.
  CudaKernelCache device_like(CudaKernelCacheOptions{dir.path, 90});
  for (const PrecompileUnit& u : units) CHECK(device_like.holds(u.source));
  const PrecompileResult again = precompile_units(device_like, units, 1, 0, 2);
  CHECK(again.cached == 6);
  CHECK(again.compiled == 0);
  CHECK(device_like.stats().compiles == 0);
}

TEST_CASE("a batched program NVRTC rejects is compiled again unit by unit") {
  TempDir dir;
  NodeCase c = node_case(ir::Op::neg, 1, {3}, {3});
  const codegen::LoopKernel k = loop_ir_kernels(c.node, c.in, c.out, 132).at(0);
  // Two units naming one kernel (a caller's mistake) make a program NVRTC rejects (the kernel
  // defined twice); alone, neg compiles and the broken text is reported under its family.
  const std::vector<PrecompileUnit> units = {{"loop-ir", loop_unit(k).source, k},
                                             {"broken", "not CUDA C", k}};
  CudaKernelCache cache(CudaKernelCacheOptions{dir.path, 90});
  const PrecompileResult r = precompile_units(cache, units, 1, 0, 8);
  CHECK(r.compiled == 1);
  CHECK(r.failed == 1);
  REQUIRE(r.errors.size() == 1);
  CHECK(r.errors[0].find("broken: ") == 0);
  CHECK(cache.holds(loop_unit(k).source));
  CHECK(r.files == std::vector<std::string>{cache.file_of(loop_unit(k).source)});
}

TEST_CASE("the family catalog holds every hand-written source once per dtype") {
  const std::vector<PrecompileUnit> units = family_kernel_units();
  std::map<std::string, int> by_family;
  for (const PrecompileUnit& u : units) {
    CHECK(!u.source.empty());
    ++by_family[u.family];
  }
  for (const char* f : {"creation", "movement", "index", "dynamic", "reduce", "scan", "sort", "dnn",
                        "fft", "solver"}) {
    INFO(f);
    CHECK(by_family[f] > 0);
  }
  CHECK(by_family["dnn"] == 5);     // four float dtypes and the copy source
  CHECK(by_family["matmul"] == 5);  // integer matmul: int8, uint8, int16, int32, int64
}

TEST_CASE("the loop-IR family's kernels are known without a device") {
  // add: one kernel; matmul: not this family's; a full sum of 2^22 elements on 132 SMs: split
  // into chunks (two launches), on one SM not.
  NodeCase add = node_case(ir::Op::add, 2, {3, 4}, {3, 4});
  const std::vector<codegen::LoopKernel> add_kernels =
      loop_ir_kernels(add.node, add.in, add.out, 132);
  REQUIRE(add_kernels.size() == 1);
  const LoopUnit unit = loop_unit(add_kernels[0]);
  CHECK(unit.names.size() == 1);
  CHECK(unit.source.find(unit.names[0]) != std::string::npos);

  NodeCase mm = node_case(ir::Op::matmul, 2, {3, 3}, {3, 3});
  CHECK(loop_ir_kernels(mm.node, mm.in, mm.out, 132).empty());

  NodeCase sum = node_case(ir::Op::sum, 1, {1 << 22}, {});
  CHECK(loop_ir_kernels(sum.node, sum.in, sum.out, 132).size() == 2);
  CHECK(loop_ir_kernels(sum.node, sum.in, sum.out, 1).size() == 1);
}

TEST_CASE("tensord-precompile's flags: defaults, values, clear errors") {
  using precompile::parse;
  const precompile::Options o = parse({"--cache-dir", "/tmp/x"});
  CHECK(o.cache_dir == "/tmp/x");
  CHECK(o.arch == 90);
  CHECK(o.sm_count == 132);
  const precompile::Options p =
      parse({"--cache-dir", "d", "--arch", "80", "--jobs", "4", "--deadline", "60"});
  CHECK(p.arch == 80);
  CHECK(p.jobs == 4);
  CHECK(p.deadline_s == 60);
  CHECK(parse({"--identity"}).identity);
  auto error_of = [](std::vector<std::string> args) {
    try {
      parse(args);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(error_of({}) == "--cache-dir is required");
  CHECK(error_of({"--cache-dir"}) == "--cache-dir needs a value");
  CHECK(error_of({"--cache-dir", "d", "--arch", "sm_90"}) ==
        "--arch wants a whole number from 50 to 200, not 'sm_90'");
  CHECK(error_of({"--cache-dir", "d", "--jobs", "-1"}) ==
        "--jobs wants a whole number from 0 to 1024, not '-1'");
  CHECK(error_of({"--cache", "d"}) == "unknown argument '--cache'");
}

}  // namespace tensord::cuda::test
