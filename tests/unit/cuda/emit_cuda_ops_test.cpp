// The CUDA emitter's formula table (emit_cuda_ops.cpp): it covers every elementwise op
// (kinds Unary, Binary, Ternary) on every real dtype combination that inference accepts, except
// the documented exclusions, and every formula compiles with NVRTC for sm_90 (no GPU needed).
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <future>
#include <optional>
#include <string>
#include <vector>

#include "engine/backends/cuda/nvrtc_compiler.h"
#include "engine/codegen/emit_cuda_internal.h"
#include "engine/ir/error.h"
#include "engine/ir/op.h"

namespace tensord::codegen::test {
namespace {

using ir::DType;
using ir::Op;

constexpr DType kReal[] = {DType::Bool,    DType::Int8,   DType::UInt8,   DType::Int16,
                           DType::Int32,   DType::Int64,  DType::Float16, DType::BFloat16,
                           DType::Float32, DType::Float64};

// Elementwise ops the table does not write (docs/cuda.md): their parameters are attributes the
// formula interface does not carry (polygamma's n, multigammaln's p), two outputs (frexp), a
// complex result (complex).
bool excluded(Op op) {
  return op == Op::polygamma || op == Op::multigammaln || op == Op::frexp || op == Op::complex;
}

struct Combo {
  Op op;
  std::vector<DType> in;
  DType out;
};

std::optional<DType> inferred(Op op, const std::vector<DType>& in, const ir::Attrs& attrs) {
  std::vector<ir::TensorType> types;
  for (DType t : in) types.push_back(ir::TensorType{t, {3}});
  std::vector<const ir::TensorType*> ptrs;
  for (const ir::TensorType& t : types) ptrs.push_back(&t);
  try {
    return ir::infer(op, ptrs, attrs).at(0).dtype;
  } catch (const Error&) {
    return std::nullopt;
  }
}

// Every (op, input dtypes) of kinds Unary/Binary/Ternary over the real dtypes, with the result
// inference gives (cast: every target dtype).
struct Table {
  std::vector<Combo> supported;
  std::vector<std::string> failures;
  int excluded = 0;
};

Table table() {
  Table t;
  auto check = [&](Op op, const std::vector<DType>& in, const ir::Attrs& attrs) {
    const std::optional<DType> out = inferred(op, in, attrs);
    std::string what = std::string(ir::name(op)) + "(";
    for (DType d : in) what += std::string(ir::name(d)) + " ";
    what += ")";
    for (DType r : kReal) {
      const bool want = out && *out == r && !excluded(op);
      if (cuda_op_supported(op, in, r) != want) {
        t.failures.push_back(what + " -> " + std::string(ir::name(r)) +
                             (want ? ": not supported"
                                   : ": supported but inference says " +
                                         (out ? std::string(ir::name(*out)) : std::string("no"))));
      }
    }
    if (!out) return;
    if (excluded(op)) {
      ++t.excluded;
      return;
    }
    t.supported.push_back(Combo{op, in, *out});
  };
  for (const ir::OpInfo& info : ir::all_ops()) {
    const Op op = info.op;
    if (info.kind == ir::OpKind::Unary) {
      for (DType a : kReal) {
        if (op == Op::cast) {
          for (DType to : kReal) {
            const std::optional<DType> out = inferred(op, {a}, {{ir::Attr::dtype, to}});
            if (!out || *out != to || !cuda_op_supported(op, std::vector<DType>{a}, to)) {
              t.failures.push_back("cast " + std::string(ir::name(a)) + " -> " +
                                   std::string(ir::name(to)));
            } else {
              t.supported.push_back(Combo{op, {a}, to});
            }
          }
          continue;
        }
        check(op, {a}, {});
      }
    } else if (info.kind == ir::OpKind::Binary) {
      for (DType a : kReal)
        for (DType b : kReal) check(op, {a, b}, {});
    } else if (info.kind == ir::OpKind::Ternary) {
      for (DType c : kReal)
        for (DType a : kReal)
          for (DType b : kReal) check(op, {c, a, b}, {});
    }
  }
  return t;
}

// Kernels of up to kPerKernel combinations of one op, one statement each (ptxas compiles the
// callees of every entry point again, and its time grows faster than the size of a kernel: a
// kernel per combination, or one per op, takes minutes). A statement loads its arguments in
// their compute types and stores the formula, rounded to a 16-bit result's grid as the
// emitter's structure does.
constexpr size_t kPerKernel = 25;

std::string statement(const Combo& c, size_t index) {
  const std::string slot = std::to_string(index);
  std::vector<std::string> args;
  for (size_t i = 0; i < c.in.size(); ++i) {
    args.push_back("((const " + std::string(cuda_compute_type(c.in[i])) + "*)a[" +
                   std::to_string(3 * index + i) + "])[threadIdx.x]");
  }
  std::string e = cuda_expr(c.op, args, c.in, c.out);
  if (c.out == DType::Float16) e = "td_op_rh(" + e + ")";
  if (c.out == DType::BFloat16) e = "td_op_rb(" + e + ")";
  return "  ((" + std::string(cuda_compute_type(c.out)) + "*)o[" + slot + "])[threadIdx.x] = " + e +
         ";\n";
}

// The special functions (double, with loops; not inlined) cost ptxas most per entry point:
// one kernel for all their combinations.
bool special(Op op) {
  switch (op) {
    case Op::lgamma:
    case Op::digamma:
    case Op::erfinv:
    case Op::erfcx:
    case Op::i0:
    case Op::i0e:
    case Op::i1:
    case Op::i1e:
    case Op::ndtr:
    case Op::ndtri:
    case Op::log_ndtr:
    case Op::sinc:
    case Op::entr:
    case Op::logit:
    case Op::xlogy:
    case Op::xlog1py:
    case Op::bessel_j0:
    case Op::bessel_j1:
    case Op::gammainc:
    case Op::gammaincc:
    case Op::zeta:
      return true;
    default:
      return false;
  }
}

// The kernels of `combos`, named k<first index>.
std::vector<std::string> kernels(std::span<const Combo> combos) {
  std::vector<std::string> out;
  size_t in_kernel = 0;
  for (size_t i = 0; i < combos.size(); ++i) {
    const bool new_op = i == 0 || combos[i].op != combos[i - 1].op;
    if (new_op || (in_kernel == kPerKernel && !special(combos[i].op))) {
      if (!out.empty()) out.back() += "}\n";
      out.push_back("extern \"C\" __global__ void k" + std::to_string(i) +
                    "(void* const* o, const void* const* a) {\n");
      in_kernel = 0;
    }
    out.back() += statement(combos[i], i);
    ++in_kernel;
  }
  if (!out.empty()) out.back() += "}\n";
  return out;
}

cuda::NvrtcOutput compile(const std::string& source, const std::string& name) {
  cuda::NvrtcRequest request;
  request.source = source;
  request.name = name;
  request.arch = 90;
  request.cubin = true;
  request.options = {"-default-device", "-std=c++17"};
  return cuda::nvrtc_compile(request);
}

TEST_CASE("the CUDA formula table covers every elementwise op on every real dtype") {
  const Table t = table();
  for (const std::string& f : t.failures) UNSCOPED_INFO(f);
  CHECK(t.failures.empty());
  // cast 100, where 1000, the binary ops on their accepted pairs: thousands of combinations.
  CHECK(t.supported.size() > 4000);
  CHECK(t.excluded > 0);
  WARN(t.supported.size() << " combinations written, " << t.excluded << " excluded");
}

TEST_CASE("complex dtypes and unknown combinations are not supported") {
  const DType c64[] = {DType::Complex64};
  CHECK_FALSE(cuda_op_supported(Op::exp, c64, DType::Complex64));
  CHECK(cuda_compute_type(DType::Complex128).empty());
  const DType ints[] = {DType::Int32, DType::Int32};
  CHECK_FALSE(cuda_op_supported(Op::add, ints, DType::Float32));  // inference says int32
  CHECK_FALSE(cuda_op_supported(Op::sum, std::span<const DType>(ints, 1), DType::Int64));
  const std::string args[] = {"x", "y"};
  try {
    cuda_expr(Op::nextafter, args, ints, DType::Int32);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::Unsupported);
    CHECK(std::string(e.what()).find("nextafter") != std::string::npos);
  }
}

TEST_CASE("conversions follow the CPU's cast rules") {
  const std::string x[] = {"x"};
  auto cast = [&](DType from, DType to) {
    const DType in[] = {from};
    return cuda_expr(Op::cast, x, in, to);
  };
  CHECK(cast(DType::Float32, DType::Int32) == "td_op_f2i32((x))");  // saturating, NaN -> 0
  CHECK(cast(DType::Float64, DType::Float16) == "td_op_rh(td_op_rto(((double)((x)))))");
  CHECK(cast(DType::Int64, DType::BFloat16) == "td_op_rb(td_op_rto(((double)((x)))))");
  CHECK(cast(DType::Int16, DType::Float16) == "td_op_rh(((float)((x))))");
  CHECK(cast(DType::Float16, DType::Float32) == "(x)");
  CHECK(cast(DType::Float32, DType::Bool) == "((x) != 0)");
  // Comparisons convert to the promoted dtype: int16 meets float16 as float16.
  const std::string xy[] = {"x", "y"};
  const DType mixed[] = {DType::Int16, DType::Float16};
  CHECK(cuda_expr(Op::lt, xy, mixed, DType::Bool) == "(td_op_rh(((float)((x)))) < (y))");
}

TEST_CASE("every formula compiles with NVRTC for sm_90") {
  const Table t = table();
  REQUIRE(t.failures.empty());
  // Batches compiled concurrently, the kernels dealt round-robin; each batch is one source
  // with the prelude.
  constexpr size_t kBatches = 4;
  std::vector<std::string> sources(kBatches, std::string(cuda_math_prelude()));
  const std::vector<std::string> all = kernels(t.supported);
  for (size_t i = 0; i < all.size(); ++i) sources[i % kBatches] += all[i];
  if (const char* dir = std::getenv("TENSORD_FORMULAS_DUMP")) {  // for timing by hand
    for (size_t b = 0; b < kBatches; ++b) {
      std::ofstream(std::string(dir) + "/formulas" + std::to_string(b) + ".cu") << sources[b];
    }
    return;
  }
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::future<cuda::NvrtcOutput>> runs;
  for (size_t b = 0; b < kBatches; ++b) {
    runs.push_back(std::async(std::launch::async, [&, b] {
      return compile(sources[b], "formulas" + std::to_string(b) + ".cu");
    }));
  }
  for (size_t b = 0; b < kBatches; ++b) {
    cuda::NvrtcOutput out = runs[b].get();  // throws with NVRTC's log when it does not compile
    CHECK(out.image.compare(0, 4,
                            "\x7f"
                            "ELF") == 0);
    if (!out.log.empty()) WARN("NVRTC log of batch " << b << ":\n" << out.log.substr(0, 4000));
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  WARN(t.supported.size() << " formulas compiled in " << seconds << " s");
}

}  // namespace
}  // namespace tensord::codegen::test
