// Sorting kernels (bitonic network, gather, select, quantile) run on the CPU (sort_emulation.h),
// for the dtypes listed below.
#include <catch2/catch.hpp>

#include <string>
#include <utility>

#include "engine/backends/cuda/sort_sources.h"
#include "tests/unit/cuda/sort_emulation.h"
#include "tests/unit/cuda/sort_emulation_dispatch.h"

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

bool emu_sort_dispatch(const std::string& source, const std::string& name, unsigned block,
                       void** args) {
  using tensord::ir::DType;
  if (&source == &tensord::cuda::sort_network_source()) {
    auto arg = [&](int i) { return args[i]; };
    if (name == "sort_chunks" || name == "sort_merge") {
      const bool merge = name == "sort_merge";
      emu_launch(1, block, [&] {
        auto* keys = *static_cast<net::u64**>(arg(0));
        auto* idx = *static_cast<net::i64**>(arg(1));
        const auto total = *static_cast<net::i64*>(arg(2)), p = *static_cast<net::i64*>(arg(3));
        const auto k = *static_cast<net::i64*>(arg(4));
        if (merge)
          net::sort_merge(keys, idx, total, p, k);
        else
          net::sort_chunks(keys, idx, total, p, k);
      });
      return true;
    }
    if (name == "sort_step") {
      emu_launch(2, block, [&] {
        net::sort_step(*static_cast<net::u64**>(arg(0)), *static_cast<net::i64**>(arg(1)),
                       *static_cast<net::i64*>(arg(2)), *static_cast<net::i64*>(arg(3)),
                       *static_cast<net::i64*>(arg(4)), *static_cast<net::i64*>(arg(5)));
      });
      return true;
    }
    return false;
  }
  if (&source == &tensord::cuda::sort_source(DType::Float32)) {
    return sort_float32::emu_dispatch(name, block, args);
  }
  if (&source == &tensord::cuda::sort_source(DType::Float16)) {
    return sort_float16::emu_dispatch(name, block, args);
  }
  if (&source == &tensord::cuda::sort_source(DType::BFloat16)) {
    return sort_bfloat16::emu_dispatch(name, block, args);
  }
  if (&source == &tensord::cuda::sort_source(DType::Float64)) {
    return sort_float64::emu_dispatch(name, block, args);
  }
  if (&source == &tensord::cuda::sort_source(DType::Int8)) {
    return sort_int8::emu_dispatch(name, block, args);
  }
  if (&source == &tensord::cuda::sort_source(DType::Int64)) {
    return sort_int64::emu_dispatch(name, block, args);
  }
  if (&source == &tensord::cuda::sort_source(DType::Bool)) {
    return sort_bool::emu_dispatch(name, block, args);
  }
  if (&source == &tensord::cuda::sort_source(DType::UInt8)) {
    return sort_uint8::emu_dispatch(name, block, args);
  }
  if (&source == &tensord::cuda::sort_source(DType::Int16)) {
    return sort_int16::emu_dispatch(name, block, args);
  }
  if (&source == &tensord::cuda::sort_source(DType::Int32)) {
    return sort_int32::emu_dispatch(name, block, args);
  }
  return false;
}

namespace {
// outer x n x inner sorted along n. Lines longer than a shared-memory chunk (2048) run the
// global compare-exchange steps and merges.
struct SortCase {
  long long outer, n, inner;
  unsigned seed;
  bool orders_only;
  const char* only;  // nullptr: every dtype
};
constexpr SortCase kCases[] = {
    {3, 7, 2, 1, false, nullptr},      {2, 1, 3, 2, false, nullptr},
    {1, 33, 1, 3, false, nullptr},     {5, 300, 1, 4, false, "int8"},
    {1, 1000, 3, 7, false, "float32"}, {1, 2048, 1, 5, false, "float32"},
    {1, 3000, 1, 6, false, "float32"}, {1, 5000, 1, 8, true, "int8"},
};
}  // namespace

TEST_CASE("sorting kernels match stable sorts (CPU emulation)") {
  using Run = EmuFailures (*)(long long, long long, long long, unsigned, bool);
  const std::pair<const char*, Run> runs[] = {
      {"float32", sort_float32::emu_sort},   {"float16", sort_float16::emu_sort},
      {"bfloat16", sort_bfloat16::emu_sort}, {"float64", sort_float64::emu_sort},
      {"int8", sort_int8::emu_sort},         {"int64", sort_int64::emu_sort},
      {"bool", sort_bool::emu_sort},         {"uint8", sort_uint8::emu_sort},
      {"int16", sort_int16::emu_sort},       {"int32", sort_int32::emu_sort},
  };
  for (const auto& [dtype, run] : runs) {
    for (const auto& c : kCases) {
      if (c.only == nullptr || std::string(dtype) == c.only) {
        const EmuFailures f = run(c.outer, c.n, c.inner, c.seed, c.orders_only);
        INFO(dtype << ": " << f.first);
        CHECK(f.count == 0);
      }
    }
  }
}
