// prod, argmax and argmin kernels run on the CPU (sort_emulation.h), for the dtypes listed below.
#include <catch2/catch.hpp>

#include "tests/unit/cuda/sort_emulation.h"

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
