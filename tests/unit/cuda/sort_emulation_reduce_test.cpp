// prod, argmax and argmin kernels run on the CPU (sort_emulation.h), for the dtypes listed below.
#include <catch2/catch.hpp>

#include "engine/backends/cuda/sort_sources.h"
#include "tests/unit/cuda/sort_emulation.h"
#include "tests/unit/cuda/sort_emulation_dispatch.h"

namespace reduce_float32 {
#include "reduce_float32.cu"
#include "tests/unit/cuda/sort_emulation_reduce.inc"
}  // namespace reduce_float32
#undef IS_FLOAT
#undef IS_COMPLEX

namespace reduce_float16 {
#include "reduce_float16.cu"
#include "tests/unit/cuda/sort_emulation_reduce.inc"
}  // namespace reduce_float16
#undef IS_FLOAT
#undef IS_COMPLEX

namespace reduce_bfloat16 {
#include "reduce_bfloat16.cu"
#include "tests/unit/cuda/sort_emulation_reduce.inc"
}  // namespace reduce_bfloat16
#undef IS_FLOAT
#undef IS_COMPLEX

namespace reduce_float64 {
#include "reduce_float64.cu"
#include "tests/unit/cuda/sort_emulation_reduce.inc"
}  // namespace reduce_float64
#undef IS_FLOAT
#undef IS_COMPLEX

namespace reduce_int64 {
#include "reduce_int64.cu"
#include "tests/unit/cuda/sort_emulation_reduce.inc"
}  // namespace reduce_int64
#undef IS_FLOAT
#undef IS_COMPLEX

namespace reduce_int8 {
#include "reduce_int8.cu"
#include "tests/unit/cuda/sort_emulation_reduce.inc"
}  // namespace reduce_int8
#undef IS_FLOAT
#undef IS_COMPLEX

namespace reduce_uint8 {
#include "reduce_uint8.cu"
#include "tests/unit/cuda/sort_emulation_reduce.inc"
}  // namespace reduce_uint8
#undef IS_FLOAT
#undef IS_COMPLEX

namespace reduce_bool {
#include "reduce_bool.cu"
#include "tests/unit/cuda/sort_emulation_reduce.inc"
}  // namespace reduce_bool
#undef IS_FLOAT
#undef IS_COMPLEX

namespace reduce_complex64 {
#include "reduce_complex64.cu"
#include "tests/unit/cuda/sort_emulation_reduce.inc"
}  // namespace reduce_complex64
#undef IS_FLOAT
#undef IS_COMPLEX

namespace reduce_complex128 {
#include "reduce_complex128.cu"
#include "tests/unit/cuda/sort_emulation_reduce.inc"
}  // namespace reduce_complex128
#undef IS_FLOAT
#undef IS_COMPLEX

namespace reduce_int32 {
#include "reduce_int32.cu"
#include "tests/unit/cuda/sort_emulation_reduce.inc"
}  // namespace reduce_int32
#undef IS_FLOAT
#undef IS_COMPLEX

bool emu_reduce_dispatch(const std::string& source, const std::string& name, unsigned block,
                         void** args) {
  using tensord::ir::DType;
  if (&source == &tensord::cuda::reduce_source(DType::Float32)) {
    return reduce_float32::emu_dispatch(name, block, args);
  }
  if (&source == &tensord::cuda::reduce_source(DType::Float16)) {
    return reduce_float16::emu_dispatch(name, block, args);
  }
  if (&source == &tensord::cuda::reduce_source(DType::BFloat16)) {
    return reduce_bfloat16::emu_dispatch(name, block, args);
  }
  if (&source == &tensord::cuda::reduce_source(DType::Float64)) {
    return reduce_float64::emu_dispatch(name, block, args);
  }
  if (&source == &tensord::cuda::reduce_source(DType::Int64)) {
    return reduce_int64::emu_dispatch(name, block, args);
  }
  if (&source == &tensord::cuda::reduce_source(DType::Int8)) {
    return reduce_int8::emu_dispatch(name, block, args);
  }
  if (&source == &tensord::cuda::reduce_source(DType::UInt8)) {
    return reduce_uint8::emu_dispatch(name, block, args);
  }
  if (&source == &tensord::cuda::reduce_source(DType::Bool)) {
    return reduce_bool::emu_dispatch(name, block, args);
  }
  if (&source == &tensord::cuda::reduce_source(DType::Complex64)) {
    return reduce_complex64::emu_dispatch(name, block, args);
  }
  if (&source == &tensord::cuda::reduce_source(DType::Complex128)) {
    return reduce_complex128::emu_dispatch(name, block, args);
  }
  if (&source == &tensord::cuda::reduce_source(DType::Int32)) {
    return reduce_int32::emu_dispatch(name, block, args);
  }
  return false;
}

TEST_CASE("prod/argmax/argmin kernels match sequential loops (CPU emulation)") {
  INFO("float32");
  {
    const EmuFailures f = reduce_float32::emu_reduce(5, 7, 1, false, 0);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = reduce_float32::emu_reduce(4, 33, 2, true, 0);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = reduce_float32::emu_reduce(3, 1000, 3, false, 1);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = reduce_float32::emu_reduce(3, 700, 4, true, 1);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = reduce_float32::emu_reduce(2, 5000, 5, false, 3);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = reduce_float32::emu_reduce(1, 1, 7, false, 1);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  INFO("float16");
  {
    const EmuFailures f = reduce_float16::emu_reduce(5, 7, 1, false, 0);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = reduce_float16::emu_reduce(4, 33, 2, true, 0);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = reduce_float16::emu_reduce(3, 1000, 3, false, 1);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = reduce_float16::emu_reduce(3, 700, 4, true, 1);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = reduce_float16::emu_reduce(2, 5000, 5, false, 3);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = reduce_float16::emu_reduce(1, 1, 7, false, 1);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  INFO("bfloat16");
  {
    const EmuFailures f = reduce_bfloat16::emu_reduce(5, 7, 1, false, 0);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = reduce_bfloat16::emu_reduce(4, 33, 2, true, 0);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = reduce_bfloat16::emu_reduce(3, 1000, 3, false, 1);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = reduce_bfloat16::emu_reduce(3, 700, 4, true, 1);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = reduce_bfloat16::emu_reduce(2, 5000, 5, false, 3);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = reduce_bfloat16::emu_reduce(1, 1, 7, false, 1);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  INFO("float64");
  {
    const EmuFailures f = reduce_float64::emu_reduce(5, 7, 1, false, 0);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = reduce_float64::emu_reduce(4, 33, 2, true, 0);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = reduce_float64::emu_reduce(3, 1000, 3, false, 1);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = reduce_float64::emu_reduce(3, 700, 4, true, 1);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = reduce_float64::emu_reduce(2, 5000, 5, false, 3);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = reduce_float64::emu_reduce(1, 1, 7, false, 1);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  INFO("int64");
  {
    const EmuFailures f = reduce_int64::emu_reduce(5, 7, 1, false, 0);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = reduce_int64::emu_reduce(4, 33, 2, true, 0);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = reduce_int64::emu_reduce(3, 1000, 3, false, 1);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = reduce_int64::emu_reduce(3, 700, 4, true, 1);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = reduce_int64::emu_reduce(2, 5000, 5, false, 3);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = reduce_int64::emu_reduce(1, 1, 7, false, 1);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  INFO("int8");
  {
    const EmuFailures f = reduce_int8::emu_reduce(5, 7, 1, false, 0);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = reduce_int8::emu_reduce(4, 33, 2, true, 0);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = reduce_int8::emu_reduce(3, 1000, 3, false, 1);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = reduce_int8::emu_reduce(3, 700, 4, true, 1);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = reduce_int8::emu_reduce(2, 5000, 5, false, 3);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = reduce_int8::emu_reduce(1, 1, 7, false, 1);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  INFO("uint8");
  {
    const EmuFailures f = reduce_uint8::emu_reduce(5, 7, 1, false, 0);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = reduce_uint8::emu_reduce(4, 33, 2, true, 0);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = reduce_uint8::emu_reduce(3, 1000, 3, false, 1);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = reduce_uint8::emu_reduce(3, 700, 4, true, 1);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = reduce_uint8::emu_reduce(2, 5000, 5, false, 3);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = reduce_uint8::emu_reduce(1, 1, 7, false, 1);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  INFO("bool");
  {
    const EmuFailures f = reduce_bool::emu_reduce(5, 7, 1, false, 0);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = reduce_bool::emu_reduce(4, 33, 2, true, 0);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = reduce_bool::emu_reduce(3, 1000, 3, false, 1);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = reduce_bool::emu_reduce(3, 700, 4, true, 1);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = reduce_bool::emu_reduce(2, 5000, 5, false, 3);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = reduce_bool::emu_reduce(1, 1, 7, false, 1);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  INFO("complex64");
  {
    const EmuFailures f = reduce_complex64::emu_reduce(5, 7, 1, false, 0);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = reduce_complex64::emu_reduce(4, 33, 2, true, 0);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = reduce_complex64::emu_reduce(3, 1000, 3, false, 1);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = reduce_complex64::emu_reduce(3, 700, 4, true, 1);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = reduce_complex64::emu_reduce(2, 5000, 5, false, 3);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = reduce_complex64::emu_reduce(1, 1, 7, false, 1);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  INFO("complex128");
  {
    const EmuFailures f = reduce_complex128::emu_reduce(5, 7, 1, false, 0);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = reduce_complex128::emu_reduce(4, 33, 2, true, 0);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = reduce_complex128::emu_reduce(3, 1000, 3, false, 1);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = reduce_complex128::emu_reduce(3, 700, 4, true, 1);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = reduce_complex128::emu_reduce(2, 5000, 5, false, 3);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = reduce_complex128::emu_reduce(1, 1, 7, false, 1);
    INFO(f.first);
    CHECK(f.count == 0);
  }
}
