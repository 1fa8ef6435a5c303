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
#include "engine/codegen/cuda_half_prelude.h"
#include "engine/codegen/emit_cuda_internal.h"
#include "engine/ir/error.h"
#include "engine/ir/op.h"
#include "tests/unit/cuda/formula_combos.h"

namespace tensord::codegen::test {
namespace {

using ir::DType;
using ir::Op;

TEST_CASE("the CUDA formula table covers every elementwise op on every real dtype") {
  const Table t = table();
  for (const std::string& f : t.failures) UNSCOPED_INFO(f);
  CHECK(t.failures.empty());
  // cast 100, where 1000, the binary ops on their accepted pairs: thousands of combinations.
  CHECK(t.supported.size() > 4000);
  CHECK(t.excluded > 0);
  WARN(t.supported.size() << " combinations written, " << t.excluded << " excluded");
}

TEST_CASE("unknown combinations are not supported; complex ones are emit_cuda_complex.cpp's") {
  const DType c64[] = {DType::Complex64};
  CHECK(cuda_op_supported(Op::exp, c64, DType::Complex64));
  CHECK(cuda_op_supported(Op::sin, c64, DType::Complex64));
  CHECK_FALSE(cuda_op_supported(Op::erf, c64, DType::Complex64));  // inference rejects it
  CHECK(cuda_compute_type(DType::Complex128) == "td_c128");
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
  CHECK(cast(DType::Float64, DType::Float16) == "td_rh(td_op_rto(((double)((x)))))");
  CHECK(cast(DType::Int64, DType::BFloat16) == "td_rb(td_op_rto(((double)((x)))))");
  CHECK(cast(DType::Int16, DType::Float16) == "td_rh(((float)((x))))");
  CHECK(cast(DType::Float16, DType::Float32) == "(x)");
  CHECK(cast(DType::Float32, DType::Bool) == "((x) != 0)");
  // Comparisons convert to the promoted dtype: int16 meets float16 as float16.
  const std::string xy[] = {"x", "y"};
  const DType mixed[] = {DType::Int16, DType::Float16};
  CHECK(cuda_expr(Op::lt, xy, mixed, DType::Bool) == "(td_rh(((float)((x)))) < (y))");
}

TEST_CASE("every formula compiles with NVRTC for sm_90") {
  const Table t = table();
  REQUIRE(t.failures.empty());
  // Batches compiled concurrently, the kernels dealt round-robin; each batch is one source
  // with the prelude.
  constexpr size_t kBatches = 4;
  std::vector<std::string> sources(
      kBatches, std::string(cuda_half_prelude()) + std::string(cuda_math_prelude()));
  const std::vector<std::string> all =
      kernels(t.supported, "[threadIdx.x]", "void* const* o, const void* const* a", "");
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
