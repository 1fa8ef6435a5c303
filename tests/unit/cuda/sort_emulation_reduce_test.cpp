// prod, argmax and argmin kernels run on the CPU (sort_emulation.h), for the dtypes listed below.
#include <catch2/catch.hpp>

#include <string>
#include <utility>

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

namespace {
// lines x n, the line along rows or columns, 0 splits: one thread per line, else blocks.
struct ReduceCase {
  long long lines, n;
  unsigned seed;
  bool columns;
  long long splits;
  const char* only;  // nullptr: every dtype
};
constexpr ReduceCase kCases[] = {
    {5, 7, 1, false, 0, nullptr},  {4, 33, 2, true, 0, nullptr},    {3, 1000, 3, false, 1, nullptr},
    {3, 700, 4, true, 1, nullptr}, {2, 5000, 5, false, 3, nullptr}, {1, 1, 7, false, 1, nullptr},
};
}  // namespace

TEST_CASE("prod/argmax/argmin kernels match sequential loops (CPU emulation)") {
  using Run = EmuFailures (*)(long long, long long, unsigned, bool, long long);
  const std::pair<const char*, Run> runs[] = {
      {"float32", reduce_float32::emu_reduce},     {"float16", reduce_float16::emu_reduce},
      {"bfloat16", reduce_bfloat16::emu_reduce},   {"float64", reduce_float64::emu_reduce},
      {"int64", reduce_int64::emu_reduce},         {"int8", reduce_int8::emu_reduce},
      {"uint8", reduce_uint8::emu_reduce},         {"bool", reduce_bool::emu_reduce},
      {"complex64", reduce_complex64::emu_reduce}, {"complex128", reduce_complex128::emu_reduce},
      {"int32", reduce_int32::emu_reduce},
  };
  for (const auto& [dtype, run] : runs) {
    for (const auto& c : kCases) {
      if (c.only == nullptr || std::string(dtype) == c.only) {
        const EmuFailures f = run(c.lines, c.n, c.seed, c.columns, c.splits);
        INFO(dtype << ": " << f.first);
        CHECK(f.count == 0);
      }
    }
  }
}
