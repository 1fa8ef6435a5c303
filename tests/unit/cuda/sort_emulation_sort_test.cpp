// Sorting kernels (bitonic network, gather, select, quantile) run on the CPU (sort_emulation.h),
// for the dtypes listed below.
#include <catch2/catch.hpp>

#include "tests/unit/cuda/sort_emulation.h"

namespace net {
#include "sort_network.cu"
}  // namespace net

namespace sort_float32 {
#include "sort_float32.cu"
#include "tests/unit/cuda/sort_emulation_sort.inc"
}  // namespace sort_float32
#undef IS_FLOAT
#undef IS_COMPLEX

namespace sort_float16 {
#include "sort_float16.cu"
#include "tests/unit/cuda/sort_emulation_sort.inc"
}  // namespace sort_float16
#undef IS_FLOAT
#undef IS_COMPLEX

namespace sort_bfloat16 {
#include "sort_bfloat16.cu"
#include "tests/unit/cuda/sort_emulation_sort.inc"
}  // namespace sort_bfloat16
#undef IS_FLOAT
#undef IS_COMPLEX

namespace sort_float64 {
#include "sort_float64.cu"
#include "tests/unit/cuda/sort_emulation_sort.inc"
}  // namespace sort_float64
#undef IS_FLOAT
#undef IS_COMPLEX

namespace sort_int8 {
#include "sort_int8.cu"
#include "tests/unit/cuda/sort_emulation_sort.inc"
}  // namespace sort_int8
#undef IS_FLOAT
#undef IS_COMPLEX

namespace sort_int64 {
#include "sort_int64.cu"
#include "tests/unit/cuda/sort_emulation_sort.inc"
}  // namespace sort_int64
#undef IS_FLOAT
#undef IS_COMPLEX

namespace sort_bool {
#include "sort_bool.cu"
#include "tests/unit/cuda/sort_emulation_sort.inc"
}  // namespace sort_bool
#undef IS_FLOAT
#undef IS_COMPLEX

namespace sort_uint8 {
#include "sort_uint8.cu"
#include "tests/unit/cuda/sort_emulation_sort.inc"
}  // namespace sort_uint8
#undef IS_FLOAT
#undef IS_COMPLEX

namespace sort_int16 {
#include "sort_int16.cu"
#include "tests/unit/cuda/sort_emulation_sort.inc"
}  // namespace sort_int16
#undef IS_FLOAT
#undef IS_COMPLEX

namespace sort_int32 {
#include "sort_int32.cu"
#include "tests/unit/cuda/sort_emulation_sort.inc"
}  // namespace sort_int32
#undef IS_FLOAT
#undef IS_COMPLEX

TEST_CASE("sorting kernels match stable sorts (CPU emulation)") {
  INFO("float32");
  {
    const EmuFailures f = sort_float32::emu_sort(3, 7, 2, 1, false);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = sort_float32::emu_sort(2, 1, 3, 2, false);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = sort_float32::emu_sort(1, 33, 1, 3, false);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = sort_float32::emu_sort(5, 300, 1, 4, false);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = sort_float32::emu_sort(1, 1000, 3, 7, false);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  INFO("float16");
  {
    const EmuFailures f = sort_float16::emu_sort(3, 7, 2, 1, false);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = sort_float16::emu_sort(2, 1, 3, 2, false);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = sort_float16::emu_sort(1, 33, 1, 3, false);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  INFO("bfloat16");
  {
    const EmuFailures f = sort_bfloat16::emu_sort(3, 7, 2, 1, false);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = sort_bfloat16::emu_sort(2, 1, 3, 2, false);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = sort_bfloat16::emu_sort(1, 33, 1, 3, false);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  INFO("float64");
  {
    const EmuFailures f = sort_float64::emu_sort(3, 7, 2, 1, false);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = sort_float64::emu_sort(2, 1, 3, 2, false);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = sort_float64::emu_sort(1, 33, 1, 3, false);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  INFO("int8");
  {
    const EmuFailures f = sort_int8::emu_sort(3, 7, 2, 1, false);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = sort_int8::emu_sort(2, 1, 3, 2, false);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = sort_int8::emu_sort(1, 33, 1, 3, false);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = sort_int8::emu_sort(5, 300, 1, 4, false);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  INFO("int64");
  {
    const EmuFailures f = sort_int64::emu_sort(3, 7, 2, 1, false);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = sort_int64::emu_sort(2, 1, 3, 2, false);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = sort_int64::emu_sort(1, 33, 1, 3, false);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  INFO("bool");
  {
    const EmuFailures f = sort_bool::emu_sort(3, 7, 2, 1, false);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = sort_bool::emu_sort(2, 1, 3, 2, false);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = sort_bool::emu_sort(1, 33, 1, 3, false);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  INFO("uint8");
  {
    const EmuFailures f = sort_uint8::emu_sort(3, 7, 2, 1, false);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = sort_uint8::emu_sort(2, 1, 3, 2, false);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = sort_uint8::emu_sort(1, 33, 1, 3, false);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  INFO("int16");
  {
    const EmuFailures f = sort_int16::emu_sort(3, 7, 2, 1, false);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = sort_int16::emu_sort(2, 1, 3, 2, false);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = sort_int16::emu_sort(1, 33, 1, 3, false);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  INFO("int32");
  {
    const EmuFailures f = sort_int32::emu_sort(3, 7, 2, 1, false);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = sort_int32::emu_sort(2, 1, 3, 2, false);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = sort_int32::emu_sort(1, 33, 1, 3, false);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  // Lines longer than a shared-memory chunk: global compare-exchange steps and merges.
  {
    const EmuFailures f = sort_float32::emu_sort(1, 2048, 1, 5, false);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = sort_float32::emu_sort(1, 3000, 1, 6, false);
    INFO(f.first);
    CHECK(f.count == 0);
  }
  {
    const EmuFailures f = sort_int8::emu_sort(1, 5000, 1, 8, true);
    INFO(f.first);
    CHECK(f.count == 0);
  }
}
