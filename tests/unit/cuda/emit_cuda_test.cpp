// The CUDA emitter without a GPU: every kernel structure and every op the formula table
// supports compiles with NVRTC for sm_90 (each op's unit with only the preludes it names); the
// text is deterministic; the parameter block and the launch configuration follow the ABI of
// emit_cuda.h.
#include <catch2/catch.hpp>

#include <bit>
#include <map>
#include <optional>

#include "engine/backends/cuda/cuda_kernel_cache.h"
#include "engine/backends/cuda/nvrtc_compiler.h"
#include "engine/codegen/emit_cuda.h"
#include "engine/codegen/emit_cuda_structure.h"
#include "engine/ir/error.h"
#include "tests/unit/cuda/loop_kernels.h"

namespace tensord::codegen::test {
namespace {

using ir::DType;
using ir::Op;

// How far a unit is compiled. To PTX, NVRTC's front end and NVVM check the emitted C++; ptxas
// (to a cubin) costs three times that again (every op's kernels: 45 s -> 157 s, the complex ones
// 24 s -> 107 s, on the 2-core CI machine) and checks only what C++ cannot say: inline PTX (the
// structure's griddepcontrol, so the structure and column kernels go to a cubin) and resources.
// The real formulas reach ptxas in tensord_unit_cuda_formulas (all of them, in four units); the
// complex ones only on a GPU, in the conformance table (they have no inline PTX).
enum class Stage { Ptx, Cubin };

// As the kernel cache compiles: its options (CudaKernelCacheOptions), so that an option that
// narrows the language (-minimal) is checked against every kernel.
void compile(const std::string& unit, const std::string& what, Stage stage = Stage::Cubin) {
  cuda::NvrtcRequest request;
  request.source = unit;
  request.name = "emit_cuda_test.cu";
  request.arch = 90;
  request.cubin = stage == Stage::Cubin;
  request.options = cuda::CudaKernelCacheOptions{}.options;
  INFO(what);
  try {
    cuda::NvrtcOutput out = cuda::nvrtc_compile(request);
    CHECK(out.image.size() > 4);
  } catch (const Error& e) {
    FAIL_CHECK(e.message() << "\n" << unit);
  }
}

TEST_CASE("every kernel structure compiles for sm_90", "[cuda][codegen]") {
  const CudaEmitter emitter;
  std::vector<EmittedKernel> all;
  for (const NamedKernel& k : structure_kernels()) {
    INFO(k.what << "\n" << describe(k.kernel));
    for (const EmittedKernel& e : emitter.entry_points(k.kernel)) {
      CHECK(e.name == "td_" + hex64(e.hash));
      CHECK(e.source.find(e.name + "(const td_params<") != std::string::npos);
      // Launched programmatically, a kernel waits for the one before it before any access.
      const size_t body = e.source.find(") {\n");
      CHECK(e.source.compare(body, 22, ") {\n  TD_GRID_WAIT();\n") == 0);
      all.push_back(e);
    }
  }
  // One unit with all of them: the preludes appear once, the kernels do not clash.
  const std::string unit = emitter.unit(all);
  CHECK(unit.find("#include") == std::string::npos);
  compile(unit, "all structure kernels in one unit");
  // Before compute capability 9.0 the wait is no instruction (griddepcontrol is sm_90's).
  cuda::NvrtcRequest ampere;
  ampere.source = unit;
  ampere.arch = 80;
  ampere.cubin = true;
  ampere.options = cuda::CudaKernelCacheOptions{}.options;
  CHECK(cuda::nvrtc_compile(ampere).image.size() > 4);
}

// The row-register entry points keep a row value in TD_R registers a thread at up to 1024
// threads (64 registers): ptxas must not spill them to local memory, which would cost what the
// entry point exists to save (kCudaRowRegisterWords).
TEST_CASE("row-register entry points compile for sm_90 without spilling", "[cuda][codegen]") {
  const CudaEmitter emitter;
  int checked = 0;
  std::vector<NamedKernel> kernels = structure_kernels();
  for (NamedKernel& k : complex_kernels()) kernels.push_back(std::move(k));
  for (const NamedKernel& k : kernels) {
    const std::optional<EmittedKernel> e = emitter.emit_row_registers(k.kernel);
    if (!e) continue;
    INFO(k.what << "\n" << describe(k.kernel));
    ++checked;
    cuda::NvrtcRequest request;
    request.source = emitter.unit({&*e, 1});
    request.arch = 90;
    request.cubin = true;
    request.options = cuda::CudaKernelCacheOptions{}.options;
    request.options.push_back("--ptxas-options=-v");
    const std::string log = cuda::nvrtc_compile(request).log;
    const size_t at = log.find("Function properties for " + e->name);
    REQUIRE(at != std::string::npos);
    const std::string properties = log.substr(at, log.find("registers", at) - at);
    INFO(properties);
    CHECK(properties.find(" 0 bytes spill stores") != std::string::npos);
    CHECK(properties.find(" 0 bytes stack frame") != std::string::npos);
  }
  CHECK(checked >= 6);  // softmax (float32, float16, outer outputs), layer norm, complex x - sum
}

TEST_CASE("column kernels compile for sm_90 and launch one thread per outer cell",
          "[cuda][codegen]") {
  const CudaEmitter emitter;
  std::vector<EmittedKernel> all;
  for (const NamedKernel& k : column_kernels()) {
    INFO(k.what << "\n" << describe(k.kernel));
    const EmittedKernel e = emitter.emit(k.kernel);
    CHECK(e.source.find("for (td_i64 t = 0; t < n; ++t)") != std::string::npos);
    CHECK(e.name == emitter.emit(k.kernel).name);  // stable text
    all.push_back(e);
  }
  compile(emitter.unit(all), "column kernels in one unit");
  LaunchShape l;
  l.inner_rank = 1;
  l.sizes = {1000, 77};
  const CudaLaunchConfig c = cuda_launch_config(column_kernels()[0].kernel, l, 100, {});
  CHECK(c.block == 256);
  CHECK(c.grid == 4);
  CHECK(c.threads_per_unit == 1);
}

TEST_CASE("every op the formula table supports compiles in a pointwise kernel", "[cuda][codegen]") {
  const CudaEmitter emitter;
  std::map<std::string, std::vector<EmittedKernel>> by_op;
  size_t count = 0;
  for (const NamedKernel& k : op_kernels()) {
    by_op[std::string(ir::name(k.kernel.body.back().op))].push_back(emitter.emit(k.kernel));
    ++count;
  }
  CHECK(count > 0);
  for (auto& [op, kernels] : by_op) compile(emitter.unit(kernels), op, Stage::Ptx);
}

TEST_CASE("every complex kernel compiles for sm_90", "[cuda][codegen][complex]") {
  const CudaEmitter emitter;
  std::map<std::string, std::vector<EmittedKernel>> by_op;
  for (const NamedKernel& k : complex_kernels()) {
    for (EmittedKernel& e : emitter.entry_points(k.kernel)) {
      by_op[k.what.substr(0, k.what.find(' '))].push_back(std::move(e));
    }
  }
  // Every op of the CPU's complex kernels (kernels_complex.cpp) is among them.
  for (const char* op :
       {"cast",    "neg",        "exp",     "log",     "sqrt",  "abs",   "real",  "imag",
        "angle",   "add",        "sub",     "mul",     "div",   "eq",    "ne",    "where",
        "complex", "complex64",  "sin",     "cos",     "tan",   "sinh",  "cosh",  "tanh",
        "asin",    "acos",       "atan",    "asinh",   "acosh", "atanh", "exp2",  "expm1",
        "log2",    "log10",      "log1p",   "square",  "rsqrt", "sign",  "isnan", "isinf",
        "pow",     "reciprocal", "sigmoid", "isfinite"}) {
    CHECK(by_op.count(op) == 1);
  }
  for (auto& [op, kernels] : by_op) compile(emitter.unit(kernels), op, Stage::Ptx);
}

TEST_CASE("a unit carries the math and complex preludes only when its kernels name them",
          "[cuda][codegen][prelude]") {
  const CudaEmitter emitter;
  const std::string structure(cuda_structure_prelude());
  const std::string math_mark = "// tensord elementwise formulas";  // cuda_math_prelude's start
  const std::string complex_mark = "struct alignas(8) td_c64";
  CHECK(cuda_unit_prelude("") == structure);
  CHECK(cuda_unit_prelude("td_op_hypot(a, b)").find(complex_mark) == std::string::npos);
  CHECK(cuda_unit_prelude("td_op_hypot(a, b)").find(math_mark) != std::string::npos);
  // A name that only starts like a prelude's is not one.
  CHECK(cuda_unit_prelude("xtd_op_hypot(a, b) td_op_hypotx").find(math_mark) == std::string::npos);
  const std::string with_complex = cuda_unit_prelude("td_c64 z;");
  CHECK(with_complex.find(math_mark) != std::string::npos);  // the complex one calls it
  CHECK(with_complex.find(complex_mark) > with_complex.find(math_mark));

  const EmittedKernel* plain = nullptr;
  const EmittedKernel* formula = nullptr;
  std::vector<EmittedKernel> ops;
  for (const NamedKernel& k : op_kernels()) ops.push_back(emitter.emit(k.kernel));
  for (const EmittedKernel& e : ops) {
    if (!plain && e.source.find("td_op_") == std::string::npos &&
        e.source.find("td_c") == std::string::npos) {
      plain = &e;
    }
    if (!formula && e.source.find("td_op_") != std::string::npos) formula = &e;
  }
  REQUIRE(plain);
  REQUIRE(formula);
  const std::string plain_unit = emitter.unit({plain, 1});
  CHECK(plain_unit.rfind(structure, 0) == 0);
  CHECK(plain_unit.find(math_mark) == std::string::npos);
  CHECK(plain_unit.find(complex_mark) == std::string::npos);
  compile(plain_unit, "a kernel without formulas, without the math prelude");
  const std::string formula_unit = emitter.unit({formula, 1});
  CHECK(formula_unit.find(math_mark) != std::string::npos);
  CHECK(formula_unit.find(complex_mark) == std::string::npos);
  const std::vector<NamedKernel> complex = complex_kernels();
  REQUIRE(!complex.empty());
  const EmittedKernel c = emitter.emit(complex.front().kernel);
  CHECK(emitter.unit({&c, 1}).find(complex_mark) != std::string::npos);
}

TEST_CASE("the same kernel gives the same text; another kernel another name", "[cuda][codegen]") {
  const CudaEmitter emitter;
  const std::vector<NamedKernel> ks = structure_kernels();
  std::map<std::string, std::string> names;
  for (const NamedKernel& k : ks) {
    const EmittedKernel a = emitter.emit(k.kernel), b = emitter.emit(k.kernel);
    CHECK(a.source == b.source);
    CHECK(a.hash == b.hash);
    CHECK(names.emplace(a.name, k.what).second);
  }
  CHECK(emitter.target() == "cuda");
}

TEST_CASE("one-dimensional passes index directly; others divide once per thread",
          "[cuda][codegen]") {
  for (const NamedKernel& k : structure_kernels()) {
    const std::string src = CudaEmitter{}.emit(k.kernel).source;
    INFO(k.what << "\n" << src);
    const bool one_dim =
        k.kernel.inner_rank == 0 ? k.kernel.outer_rank == 1 : k.kernel.inner_rank == 1;
    if (one_dim && (k.kernel.inner_rank == 0 || k.kernel.outer_rank == 1)) {
      CHECK(src.find('%') == std::string::npos);
      CHECK(src.find("/=") == std::string::npos);
    }
    // Divisions happen before the loops, never inside a pass.
    const size_t loop = src.find("for (td_i64 e0");
    REQUIRE(loop != std::string::npos);
    CHECK(src.find('%', loop) == std::string::npos);
  }
}

TEST_CASE("contiguous one-dimensional pointwise kernels read and write aligned vectors first",
          "[cuda][codegen]") {
  auto emit = [](Access a, Access b, int outer) {
    KernelBuilder k(outer, 0);
    k.out(k.op(Op::add, {k.load(DType::Float16, a), k.load(DType::Float32, b)}, DType::Float32));
    return CudaEmitter{}.emit(k.kernel()).source;
  };
  const std::string vec = emit(Access::Contiguous, Access::Broadcast, 1);
  INFO(vec);
  // Each contiguous operand's alignment is checked; the broadcast input is read as a scalar.
  CHECK(vec.find("sizeof(td_vec<td_u16>)") != std::string::npos);
  CHECK(vec.find("sizeof(td_vec<float>)") != std::string::npos);
  CHECK(vec.find("*(const td_vec<float>*)") == std::string::npos);
  CHECK(vec.find("*(td_vec<float>*)(q2 + ev * TD_U)") != std::string::npos);
  // The scalar pass takes over where the vectors end.
  CHECK(vec.find("for (td_i64 e0 = td_vn + lane;") != std::string::npos);
  for (const std::string& plain : {emit(Access::Strided, Access::Contiguous, 1),
                                   emit(Access::Contiguous, Access::Contiguous, 2)}) {
    INFO(plain);
    CHECK(plain.find("td_vec") == std::string::npos);
    CHECK(plain.find("for (td_i64 e0 = lane;") != std::string::npos);
  }
}

TEST_CASE("what the CUDA emitter cannot express is an Unsupported error", "[cuda][codegen]") {
  KernelBuilder k(1, 0);
  k.out(k.op(Op::erf, {k.load(DType::Complex64)}, DType::Complex64));
  CHECK_THROWS_AS(CudaEmitter{}.emit(k.kernel()), Error);
  try {
    CudaEmitter{}.emit(k.kernel());
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::Unsupported);
    CHECK(std::string(e.what()).find("erf") != std::string::npos);
  }
  const DType c64[] = {DType::Complex64};
  const DType c64_c128[] = {DType::Complex64, DType::Complex128};
  CHECK(cuda_expressible(Op::exp, c64, DType::Complex64));
  CHECK_FALSE(cuda_expressible(Op::exp, c64, DType::Complex128));  // not what infer gives
  CHECK(cuda_expressible(Op::abs, c64, DType::Float32));
  CHECK_FALSE(cuda_expressible(Op::abs, c64, DType::Complex64));
  CHECK(cuda_expressible(Op::mul, c64_c128, DType::Complex128));
  CHECK(cuda_expressible(Op::ne, c64_c128, DType::Bool));
  CHECK_FALSE(cuda_expressible(Op::lt, c64_c128, DType::Bool));
  CHECK_FALSE(cuda_expressible(Op::floor, c64, DType::Complex64));
  CHECK(cuda_expressible_reduction(Op::sum, DType::Complex64, DType::Complex64));
  CHECK_FALSE(cuda_expressible_reduction(Op::sum, DType::Complex64, DType::Complex128));
  CHECK_FALSE(cuda_expressible_reduction(Op::max, DType::Complex128, DType::Complex128));
  CHECK(cuda_expressible_reduction(Op::prod, DType::Float32, DType::Float32));
  CHECK_FALSE(cuda_expressible_reduction(Op::prod, DType::Int32, DType::Int32));
  CHECK(cuda_expressible_reduction(Op::argmax, DType::Float16, DType::Int64));
  CHECK_FALSE(cuda_expressible_reduction(Op::argmax, DType::Float16, DType::Float16));
  CHECK_FALSE(cuda_expressible_reduction(Op::argmin, DType::Bool, DType::Int64));
  CHECK_FALSE(cuda_expressible_reduction(Op::any, DType::Bool, DType::Bool));
  CHECK_FALSE(cuda_expressible_reduction(Op::sum, DType::Int32, DType::Int32));
  CHECK(cuda_expressible_reduction(Op::sum, DType::Int32, DType::Int64));
  CHECK(cuda_expressible_reduction(Op::sum, DType::Bool, DType::Int64));
  CHECK(cuda_expressible_reduction(Op::sum, DType::Float16, DType::Float16));
  CHECK(cuda_expressible_reduction(Op::max, DType::Bool, DType::Bool));
  CHECK(cuda_expressible_reduction(Op::min, DType::UInt8, DType::UInt8));
  const DType f32[] = {DType::Float32};
  CHECK(cuda_expressible(Op::sum, f32, DType::Float32));
  CHECK_FALSE(cuda_expressible(Op::matmul, f32, DType::Float32));
}

TEST_CASE("the parameter block: sizes, strides, addresses, constants", "[cuda][codegen]") {
  KernelBuilder b(1, 1);
  const uint32_t x = b.load(DType::Float32);
  const uint32_t y = b.load(DType::Float32, Access::Strided);
  const uint32_t s = b.reduce(Op::sum, b.op(Op::mul, {x, y}, DType::Float32), DType::Float32);
  b.out(b.op(Op::mul, {s, b.constant(DType::Float32, 1)}, DType::Float32, Level::Outer));
  const LoopKernel& k = b.kernel();
  LaunchShape launch;
  launch.inner_rank = 1;
  launch.sizes = {6, 7};
  launch.strides = {7, 1, 1, 6, 1, 0};
  launch.constants = {0.5, 0.25};
  int a = 0, c = 0, d = 0;
  void* const ptrs[] = {&a, &c, &d};
  const std::vector<uint64_t> w = cuda_params(k, launch, ptrs);
  // rank 2, 3 operands: 2 sizes + 6 strides + 3 addresses + 2 constants (Const #1 is used).
  REQUIRE(w.size() == 13);
  CHECK(w[0] == 6);
  CHECK(w[1] == 7);
  for (int i = 0; i < 6; ++i) CHECK(static_cast<int64_t>(w[2 + i]) == launch.strides[i]);
  CHECK(w[8] == reinterpret_cast<uintptr_t>(&a));
  CHECK(w[9] == reinterpret_cast<uintptr_t>(&c));
  CHECK(w[10] == reinterpret_cast<uintptr_t>(&d));
  CHECK(std::bit_cast<double>(w[11]) == 0.5);
  CHECK(std::bit_cast<double>(w[12]) == 0.25);
  CHECK(CudaEmitter{}.emit(k).source.find("td_params<13>") != std::string::npos);

  // No constant: one word all the same.
  KernelBuilder p(1, 0);
  p.out(p.op(Op::neg, {p.load(DType::Float32)}, DType::Float32));
  LaunchShape pl;
  pl.sizes = {10};
  pl.strides = {1, 1};
  void* const two[] = {&a, &c};
  CHECK(cuda_params(p.kernel(), pl, two).size() == 1 + 2 + 2 + 1);
  CHECK(CudaEmitter{}.emit(p.kernel()).source.find("td_params<6>") != std::string::npos);
  pl.strides = {1};
  CHECK_THROWS_AS(cuda_params(p.kernel(), pl, two), Error);
}

TEST_CASE("launch configurations", "[cuda][codegen]") {
  KernelBuilder p(1, 0);
  p.out(p.op(Op::neg, {p.load(DType::Float32)}, DType::Float32));
  LaunchShape pl;
  pl.strides = {1, 1};
  auto pointwise = [&](int64_t n) {
    pl.sizes = {n};
    return cuda_launch_config(p.kernel(), pl, 132, {});
  };
  CHECK(pointwise(0).grid == 0);
  CHECK(pointwise(1).grid == 1);
  CHECK(pointwise(1).block == 256);
  CHECK(pointwise(1000).grid == 4);                     // one element per thread while it fits
  CHECK(pointwise(int64_t{1} << 22).grid == 4096);      // TD_U per thread
  CHECK(pointwise(int64_t{1} << 34).grid == 132 * 32);  // capped; the kernel grid-strides
  CHECK(pointwise(132 * 8 * 256 + 1).grid == 132 * 8);

  KernelBuilder r(1, 1);
  r.out(r.reduce(Op::sum, r.load(DType::Float32), DType::Float32));
  LaunchShape rl;
  rl.inner_rank = 1;
  rl.strides = {1, 1, 1, 0};
  auto rows = [&](int64_t outer, int64_t inner) {
    rl.sizes = {outer, inner};
    return cuda_launch_config(r.kernel(), rl, 132, {});
  };
  CHECK(rows(0, 10).grid == 0);
  // Short rows share a warp: 64 rows of 16 elements, 4 threads each.
  CHECK(rows(64, 16).block == 256);
  CHECK(rows(64, 16).grid == 1);
  CHECK(rows(10000, 1000).grid == (10000 + 7) / 8);  // a warp per row
  CHECK(rows(10, 100000).grid == 10);                // a block per row
  CHECK(rows(10, 100000).block == 512);
  CHECK(rows(10, 2000).block == 256);
  CHECK(rows(1000000, 100000).grid == 132 * 32);
  CHECK(rows(5, 0).grid == 1);  // outputs still written: sum of nothing
  for (int64_t n : {0, 1, 3, 100, 129, 1000, 5000, 1 << 20}) {
    const CudaLaunchConfig c = rows(7, n);
    CHECK(c.block % 32 == 0);
    CHECK(c.block <= 512);
    CHECK(c.shared_bytes == 0);
  }
  CHECK(cuda_row_group(16, 64, false) == 4);
  CHECK(cuda_row_group(5000, 64, false) == 0);
  CHECK(cuda_row_group(5000, 5000, true) == 4);
}

// A 16-bit value is rounded where it is computed when a later instruction reads it, as eager
// kernels round every result; one that only a store of its dtype reads is not (the store's
// conversion rounds alike: tensord_unit_cuda_formulas_host checks the identity), nor is a cast,
// which rounds itself.
TEST_CASE("16-bit values only stored are not rounded before their store", "[cuda][codegen]") {
  auto count = [](const std::string& s, const std::string& w) {
    size_t n = 0;
    for (size_t at = s.find(w); at != std::string::npos; at = s.find(w, at + 1)) ++n;
    return n;
  };
  for (DType t : {DType::Float16, DType::BFloat16}) {
    const std::string round = t == DType::Float16 ? "td_rh(" : "td_rb(";
    KernelBuilder b(1, 0);
    const uint32_t x = b.load(t);
    const uint32_t y = b.op(Op::exp, {x}, t);                        // read by z: rounded
    const uint32_t z = b.op(Op::mul, {y, y}, t);                     // only stored
    const uint32_t c = b.op(Op::cast, {b.load(DType::Float32)}, t);  // rounds itself, once
    b.out(z).out(c).out(y);  // y is stored too: still rounded, for z
    const EmittedKernel e = CudaEmitter{}.emit(b.kernel());
    INFO(e.source);
    // Each formula is written once per pass: the vector pass, then the one that ends the range.
    const size_t passes = count(e.source, "for (td_i64 e0") + count(e.source, "for (td_i64 ev");
    CHECK(passes == 2);
    CHECK(count(e.source, round) == 2 * passes);  // exp's result, and the cast's own
    CHECK(count(e.source, round + round) == 0);
    compile(CudaEmitter{}.unit(std::span<const EmittedKernel>(&e, 1)), "16-bit stores");
  }
  // A reduction only stored (a float16 sum) is not rounded either; one read later is.
  KernelBuilder r(1, 1);
  const uint32_t x = r.load(DType::Float16);
  const uint32_t s = r.reduce(Op::sum, x, DType::Float16);
  const uint32_t m = r.reduce(Op::max, x, DType::Float16);
  r.out(s).out(r.op(Op::mul, {m, m}, DType::Float16, Level::Outer));
  const std::string src = CudaEmitter{}.emit(r.kernel()).source;
  INFO(src);
  CHECK(count(src, "td_rh(") == 1);  // the max, which the product reads
}

}  // namespace
}  // namespace tensord::codegen::test
