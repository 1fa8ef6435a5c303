// cumsum, cumprod, logcumsumexp, cummax and cummin kernels run on the CPU (sort_emulation.h), for
// the dtypes listed below.
#include <catch2/catch.hpp>

#include <string>
#include <utility>

#include "engine/backends/cuda/sort_sources.h"
#include "tests/unit/cuda/sort_emulation.h"
#include "tests/unit/cuda/sort_emulation_dispatch.h"

namespace scan_float32 {
#include "scan_float32.cu"
#include "tests/unit/cuda/sort_emulation_scan.inc"
}  // namespace scan_float32
#undef IS_FLOAT
#undef IS_COMPLEX

namespace scan_float16 {
#include "scan_float16.cu"
#include "tests/unit/cuda/sort_emulation_scan.inc"
}  // namespace scan_float16
#undef IS_FLOAT
#undef IS_COMPLEX

namespace scan_bfloat16 {
#include "scan_bfloat16.cu"
#include "tests/unit/cuda/sort_emulation_scan.inc"
}  // namespace scan_bfloat16
#undef IS_FLOAT
#undef IS_COMPLEX

namespace scan_float64 {
#include "scan_float64.cu"
#include "tests/unit/cuda/sort_emulation_scan.inc"
}  // namespace scan_float64
#undef IS_FLOAT
#undef IS_COMPLEX

namespace scan_int32 {
#include "scan_int32.cu"
#include "tests/unit/cuda/sort_emulation_scan.inc"
}  // namespace scan_int32
#undef IS_FLOAT
#undef IS_COMPLEX

namespace scan_uint8 {
#include "scan_uint8.cu"
#include "tests/unit/cuda/sort_emulation_scan.inc"
}  // namespace scan_uint8
#undef IS_FLOAT
#undef IS_COMPLEX

namespace scan_bool {
#include "scan_bool.cu"
#include "tests/unit/cuda/sort_emulation_scan.inc"
}  // namespace scan_bool
#undef IS_FLOAT
#undef IS_COMPLEX

namespace scan_int64 {
#include "scan_int64.cu"
#include "tests/unit/cuda/sort_emulation_scan.inc"
}  // namespace scan_int64
#undef IS_FLOAT
#undef IS_COMPLEX

namespace scan_complex64 {
#include "scan_complex64.cu"
#include "tests/unit/cuda/sort_emulation_scan.inc"
}  // namespace scan_complex64
#undef IS_FLOAT
#undef IS_COMPLEX

namespace scan_complex128 {
#include "scan_complex128.cu"
#include "tests/unit/cuda/sort_emulation_scan.inc"
}  // namespace scan_complex128
#undef IS_FLOAT
#undef IS_COMPLEX

bool emu_scan_dispatch(const std::string& source, const std::string& name, unsigned block,
                       void** args) {
  using tensord::ir::DType;
  if (&source == &tensord::cuda::scan_source(DType::Float32)) {
    return scan_float32::emu_dispatch(name, block, args);
  }
  if (&source == &tensord::cuda::scan_source(DType::Float16)) {
    return scan_float16::emu_dispatch(name, block, args);
  }
  if (&source == &tensord::cuda::scan_source(DType::BFloat16)) {
    return scan_bfloat16::emu_dispatch(name, block, args);
  }
  if (&source == &tensord::cuda::scan_source(DType::Float64)) {
    return scan_float64::emu_dispatch(name, block, args);
  }
  if (&source == &tensord::cuda::scan_source(DType::Int32)) {
    return scan_int32::emu_dispatch(name, block, args);
  }
  if (&source == &tensord::cuda::scan_source(DType::UInt8)) {
    return scan_uint8::emu_dispatch(name, block, args);
  }
  if (&source == &tensord::cuda::scan_source(DType::Bool)) {
    return scan_bool::emu_dispatch(name, block, args);
  }
  if (&source == &tensord::cuda::scan_source(DType::Int64)) {
    return scan_int64::emu_dispatch(name, block, args);
  }
  if (&source == &tensord::cuda::scan_source(DType::Complex64)) {
    return scan_complex64::emu_dispatch(name, block, args);
  }
  if (&source == &tensord::cuda::scan_source(DType::Complex128)) {
    return scan_complex128::emu_dispatch(name, block, args);
  }
  return false;
}

namespace {
// outer x n x inner, scanned along n by one thread per line or one block per line.
struct ScanCase {
  long long outer, n, inner;
  unsigned seed;
  bool block;
  const char* only;  // nullptr: every dtype
};
constexpr ScanCase kCases[] = {
    {3, 7, 2, 1, false, nullptr}, {2, 300, 3, 3, false, nullptr},
    {1, 1, 1, 4, false, nullptr}, {1, 1000, 1, 2, false, "float32"},
    {3, 7, 2, 1, true, nullptr},  {2, 300, 3, 3, true, nullptr},
    {1, 1, 1, 4, true, nullptr},  {1, 1000, 1, 2, true, "float32"},
};
}  // namespace

TEST_CASE("scan kernels match the CPU's sequential steps (CPU emulation)") {
  using Run = EmuFailures (*)(long long, long long, long long, unsigned, bool);
  const std::pair<const char*, Run> runs[] = {
      {"float32", scan_float32::emu_scan},     {"float16", scan_float16::emu_scan},
      {"bfloat16", scan_bfloat16::emu_scan},   {"float64", scan_float64::emu_scan},
      {"int32", scan_int32::emu_scan},         {"uint8", scan_uint8::emu_scan},
      {"bool", scan_bool::emu_scan},           {"int64", scan_int64::emu_scan},
      {"complex64", scan_complex64::emu_scan}, {"complex128", scan_complex128::emu_scan},
  };
  for (const auto& [dtype, run] : runs) {
    for (const auto& c : kCases) {
      if (c.only == nullptr || std::string(dtype) == c.only) {
        const EmuFailures f = run(c.outer, c.n, c.inner, c.seed, c.block);
        INFO(dtype << ": " << f.first);
        CHECK(f.count == 0);
      }
    }
  }
}
