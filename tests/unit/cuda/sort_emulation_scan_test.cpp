// cumsum, cumprod, logcumsumexp, cummax and cummin kernels run on the CPU (sort_emulation.h), for
// the dtypes listed below.
#include <catch2/catch.hpp>

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
  return false;
}

TEST_CASE("scan kernels match the CPU's sequential steps (CPU emulation)") {
  INFO("float32");
  {
    const EmuFailures f = scan_float32::emu_scan(3, 7, 2, 1, false);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = scan_float32::emu_scan(1, 1000, 1, 2, false);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = scan_float32::emu_scan(2, 300, 3, 3, false);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = scan_float32::emu_scan(1, 1, 1, 4, false);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = scan_float32::emu_scan(3, 7, 2, 1, true);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = scan_float32::emu_scan(1, 1000, 1, 2, true);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = scan_float32::emu_scan(2, 300, 3, 3, true);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = scan_float32::emu_scan(1, 1, 1, 4, true);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  INFO("float16");
  {
    const EmuFailures f = scan_float16::emu_scan(3, 7, 2, 1, false);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = scan_float16::emu_scan(1, 1000, 1, 2, false);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = scan_float16::emu_scan(2, 300, 3, 3, false);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = scan_float16::emu_scan(1, 1, 1, 4, false);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = scan_float16::emu_scan(3, 7, 2, 1, true);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = scan_float16::emu_scan(1, 1000, 1, 2, true);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = scan_float16::emu_scan(2, 300, 3, 3, true);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = scan_float16::emu_scan(1, 1, 1, 4, true);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  INFO("bfloat16");
  {
    const EmuFailures f = scan_bfloat16::emu_scan(3, 7, 2, 1, false);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = scan_bfloat16::emu_scan(2, 300, 3, 3, false);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = scan_bfloat16::emu_scan(1, 1, 1, 4, false);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = scan_bfloat16::emu_scan(3, 7, 2, 1, true);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = scan_bfloat16::emu_scan(2, 300, 3, 3, true);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = scan_bfloat16::emu_scan(1, 1, 1, 4, true);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  INFO("float64");
  {
    const EmuFailures f = scan_float64::emu_scan(3, 7, 2, 1, false);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = scan_float64::emu_scan(2, 300, 3, 3, false);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = scan_float64::emu_scan(1, 1, 1, 4, false);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = scan_float64::emu_scan(3, 7, 2, 1, true);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = scan_float64::emu_scan(2, 300, 3, 3, true);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = scan_float64::emu_scan(1, 1, 1, 4, true);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  INFO("int32");
  {
    const EmuFailures f = scan_int32::emu_scan(3, 7, 2, 1, false);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = scan_int32::emu_scan(1, 1000, 1, 2, false);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = scan_int32::emu_scan(2, 300, 3, 3, false);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = scan_int32::emu_scan(1, 1, 1, 4, false);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = scan_int32::emu_scan(3, 7, 2, 1, true);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = scan_int32::emu_scan(1, 1000, 1, 2, true);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = scan_int32::emu_scan(2, 300, 3, 3, true);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = scan_int32::emu_scan(1, 1, 1, 4, true);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  INFO("uint8");
  {
    const EmuFailures f = scan_uint8::emu_scan(3, 7, 2, 1, false);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = scan_uint8::emu_scan(2, 300, 3, 3, false);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = scan_uint8::emu_scan(1, 1, 1, 4, false);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = scan_uint8::emu_scan(3, 7, 2, 1, true);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = scan_uint8::emu_scan(2, 300, 3, 3, true);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = scan_uint8::emu_scan(1, 1, 1, 4, true);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  INFO("bool");
  {
    const EmuFailures f = scan_bool::emu_scan(3, 7, 2, 1, false);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = scan_bool::emu_scan(2, 300, 3, 3, false);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = scan_bool::emu_scan(1, 1, 1, 4, false);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = scan_bool::emu_scan(3, 7, 2, 1, true);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = scan_bool::emu_scan(2, 300, 3, 3, true);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = scan_bool::emu_scan(1, 1, 1, 4, true);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  INFO("int64");
  {
    const EmuFailures f = scan_int64::emu_scan(3, 7, 2, 1, false);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = scan_int64::emu_scan(2, 300, 3, 3, false);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = scan_int64::emu_scan(1, 1, 1, 4, false);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = scan_int64::emu_scan(3, 7, 2, 1, true);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = scan_int64::emu_scan(2, 300, 3, 3, true);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = scan_int64::emu_scan(1, 1, 1, 4, true);
    INFO(f.first);
    CHECK(f.count == 0);
  }
}
