// The CUDA formula table's semantics without a GPU: every supported (op, dtypes) combination,
// written by cuda_expr and compiled as host C++ (formulas_host_gen.cpp, formulas_host_shim.h),
// against the CPU backend's kernels over edge and random values. This checks what the table
// decides (conversions, integer edge cases, NaN and infinity branches, the ported special
// functions); the accuracy of CUDA's own math functions is the GPU test's
// (formulas_gpu_test.cpp).
#include <catch2/catch.hpp>

#include <bit>
#include <cstdint>
#include <map>
#include <string>

#include "engine/ir/half.h"

#include "tests/unit/cuda/formula_cases.h"

namespace tensord::codegen::test {

struct HostFormula {
  const char* name;
  void (*fn)(void* const*, const void* const*, long long);
};
extern const HostFormula kHostFormulas[];
struct HostHalf {
  float (*h2f)(unsigned short);
  unsigned short (*f2h)(float);
  float (*b2f)(unsigned short);
  unsigned short (*f2b)(float);
  float (*rh)(float);
  float (*rb)(float);
};
extern const HostHalf kHostHalf;

namespace {

TEST_CASE("the CUDA formulas, run on the host, agree with the CPU kernels") {
  const Table t = table();
  REQUIRE(t.failures.empty());
  std::vector<Case> cases;
  for (const Combo& k : t.supported) cases.push_back(make_case(k));
  for (Case& c : cases) run_cpu(c);
  std::vector<void*> out(cases.size()), in(3 * cases.size(), nullptr);
  for (size_t i = 0; i < cases.size(); ++i) {
    Case& c = cases[i];
    c.gpu_out.assign(c.n * compute_size(c.combo.out), 0);
    out[i] = c.gpu_out.data();
    for (size_t j = 0; j < c.dev_in.size(); ++j) in[3 * i + j] = c.dev_in[j].data();
  }
  // The generated table must be this build's table: the same kernels, in order.
  const std::vector<std::string> texts = loop_kernels(t.supported, false);
  size_t count = 0;
  for (const HostFormula* f = kHostFormulas; f->name != nullptr; ++f, ++count) {
    REQUIRE(count < texts.size());
    REQUIRE(kernel_name(texts[count]) == f->name);
    f->fn(out.data(), in.data(), static_cast<long long>(kElements));
  }
  REQUIRE(count == texts.size());
  std::string report;
  size_t failed = 0;
  for (const Case& c : cases) {
    const std::string r = compare(c);
    if (r.empty()) continue;
    ++failed;
    report += r;
  }
  UNSCOPED_INFO(report.substr(0, 20000));
  CHECK(failed == 0);
  WARN(cases.size() << " combinations, " << failed << " disagree");
}

// cuda_half_prelude's conversions (written as selects for NVRTC's compile time) are the CPU's
// bit for bit: every 16-bit value, and the floats of every sign, exponent and upper mantissa
// (bits 13-31 all, the 13 low bits at the patterns around float16's rounding point; bfloat16's
// is among the upper bits). NaNs compare by bits (payload and sign kept as the CPU keeps them).
// Also: rounding before a store changes nothing the store writes.
TEST_CASE("the CUDA 16-bit conversions are engine/ir/half.h's bit for bit") {
  using ir::BFloat16;
  using ir::Float16;
  const HostHalf& c = kHostHalf;
  size_t bad = 0;
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const auto b = static_cast<uint16_t>(h);
    bad += std::bit_cast<uint32_t>(c.h2f(b)) != std::bit_cast<uint32_t>(Float16::to_float(b));
    bad += std::bit_cast<uint32_t>(c.b2f(b)) != std::bit_cast<uint32_t>(BFloat16::to_float(b));
  }
  CHECK(bad == 0);
  constexpr uint32_t kLow[] = {0, 1, 0x7ff, 0xfff, 0x1000, 0x1001, 0x17ff, 0x1fff};
  size_t checked = 0;
  for (uint32_t hi = 0; hi < (1u << 19); ++hi) {
    for (uint32_t low : kLow) {
      const uint32_t u = hi << 13 | low;
      const float f = std::bit_cast<float>(u);
      const uint16_t h = Float16::from_float(f), b = BFloat16::from_float(f);
      bad += c.f2h(f) != h;
      bad += c.f2b(f) != b;
      bad += std::bit_cast<uint32_t>(c.rh(f)) != std::bit_cast<uint32_t>(Float16::to_float(h));
      bad += std::bit_cast<uint32_t>(c.rb(f)) != std::bit_cast<uint32_t>(BFloat16::to_float(b));
      // The emitter stores a value that only stores read without rounding it first
      // (CudaWriter::result): storing the rounded value must give the same bits.
      bad += c.f2h(c.rh(f)) != h;
      bad += c.f2b(c.rb(f)) != b;
      ++checked;
    }
  }
  CHECK(bad == 0);
  CHECK(checked == (size_t{1} << 19) * std::size(kLow));
}

}  // namespace
}  // namespace tensord::codegen::test
