// The conformance table on every backend, and self-checks of the reference it compares with.
#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <optional>

#include "tests/conformance/case.h"
#include "tests/conformance/complex_table.h"
#include "tests/conformance/reference.h"
#include "tests/conformance/runner.h"

namespace tensord::conformance {
namespace {

// TENSORD_CONFORMANCE_FILTER=text runs only the cases whose description contains `text`;
// TENSORD_CONFORMANCE_ALL_FAILURES=1 prints every failure instead of the first 25 per op.
const char* case_filter() {
  const char* filter = std::getenv("TENSORD_CONFORMANCE_FILTER");
  return filter && *filter ? filter : nullptr;
}

// TENSORD_CONFORMANCE_SHARD=k/n runs every n-th case from the k-th (0-based), so that n
// processes share a slow backend's table (on a GPU most of the time goes to compiling
// kernels, which parallelises across processes). Each shard prints its per-op coverage
// instead of checking it: scripts/gpu-session merges them.
struct Shard {
  size_t index = 0, count = 1;
};
std::optional<Shard> shard() {
  const char* s = std::getenv("TENSORD_CONFORMANCE_SHARD");
  if (s == nullptr || *s == '\0') return std::nullopt;
  Shard out;
  if (std::sscanf(s, "%zu/%zu", &out.index, &out.count) != 2 || out.count == 0 ||
      out.index >= out.count) {
    return std::nullopt;
  }
  return out;
}

std::vector<Case> selected_cases() {
  std::vector<Case> cases = all_cases();
  const char* filter = case_filter();
  const std::optional<Shard> part = shard();
  if (!filter && !part) return cases;
  std::vector<Case> out;
  for (size_t i = 0; i < cases.size(); ++i) {
    if (part && i % part->count != part->index) continue;
    if (filter && describe(cases[i]).find(filter) == std::string::npos) continue;
    out.push_back(std::move(cases[i]));
  }
  return out;
}

void print(const Summary& s) {
  const char* all = std::getenv("TENSORD_CONFORMANCE_ALL_FAILURES");
  const size_t cap = all && *all == '1' ? SIZE_MAX : 25;
  std::map<std::string, int> by_op;
  for (const CaseFailure& f : s.failures) {
    if (static_cast<size_t>(by_op[f.op]++) < cap)
      std::cout << "FAIL [" << s.backend << "] " << f.message << "\n";
  }
  if (!by_op.empty()) {
    std::cout << "failures by op on " << s.backend << ":";
    for (const auto& [op, n] : by_op) std::cout << " " << op << "=" << n;
    std::cout << "\n";
  }
  std::cout << "conformance " << s.backend << ": " << s.cases << " cases, " << s.failed
            << " failed, " << s.skipped << " skipped";
  if (!s.skip_reason.empty()) std::cout << " (" << s.skip_reason << ")";
  std::cout << std::endl;
}

// TENSORD_CONFORMANCE_BACKEND=name runs the table on that backend only (ctest runs one entry
// per backend, so that they run in parallel and each has its own time limit).
bool backend_selected(const std::string& name) {
  const char* only = std::getenv("TENSORD_CONFORMANCE_BACKEND");
  return only == nullptr || *only == '\0' || name == only;
}

TEST_CASE("every op conforms to docs/ops.md on every backend", "[conformance]") {
  const std::vector<Case> cases = selected_cases();
  REQUIRE(!cases.empty());
  for (const BackendUnderTest& backend : backends_under_test()) {
    if (!backend_selected(backend.name)) continue;
    const auto t0 = std::chrono::steady_clock::now();
    Summary s = run_table(backend, cases);
    print(s);
    // The fused backend's cost over the eager one is what compiling generated kernels adds.
    std::cout << "conformance " << s.backend << " took "
              << std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()
              << " s" << std::endl;
    if (s.skipped > 0) WARN("conformance " << s.backend << " skipped: " << s.skip_reason);
    // A ctest entry for one backend whose device is absent (the cuda entries without a GPU)
    // exits 77, which ctest reports as Skipped: never a vacuous pass.
    if (s.cases == 0 && s.skipped > 0 && std::getenv("TENSORD_CONFORMANCE_BACKEND") != nullptr &&
        !shard()) {
      std::cout << "WARN: skipped, " << s.skip_reason << std::endl;
      std::exit(77);
    }
    INFO("backend " << s.backend);
    CHECK(s.failed == 0);
    // A backend that ran must have matched real values of every op, not only error cases.
    if (shard()) {
      for (const auto& [op, c] : s.coverage) {
        if (c.values > 0) std::cout << "coverage " << s.backend << " " << op << "\n";
      }
      if (shard()->index == 0) {  // what the shards' coverage must add up to
        const std::vector<ir::Op> complex_ops = complex_table_ops();
        for (const ir::OpInfo& info : ir::all_ops()) {
          if (info.op != ir::Op::input &&
              std::find(complex_ops.begin(), complex_ops.end(), info.op) == complex_ops.end()) {
            std::cout << "needs " << s.backend << " " << info.name << "\n";
          }
        }
      }
    } else if (s.skipped == 0 && !case_filter()) {
      std::string missing;
      const std::vector<ir::Op> complex_ops = complex_table_ops();  // issue 4: their own table
      auto in_complex_table = [&](ir::Op op) {
        return std::find(complex_ops.begin(), complex_ops.end(), op) != complex_ops.end();
      };
      for (const ir::OpInfo& info : ir::all_ops()) {
        if (info.op != ir::Op::input && !in_complex_table(info.op) &&
            s.coverage[std::string(info.name)].values == 0) {
          missing.append(1, ' ').append(info.name);
        }
      }
      if (!missing.empty())
        std::cout << "ops without a passing value case on " << s.backend << ":" << missing
                  << std::endl;
      for (const ir::OpInfo& info : ir::all_ops()) {
        if (info.op == ir::Op::input || in_complex_table(info.op)) continue;
        INFO("op " << info.name << " has no passing value case on " << s.backend);
        CHECK(s.coverage[std::string(info.name)].values > 0);
      }
    }
  }
}

TEST_CASE("the table covers every op of ops.def", "[conformance]") {
  std::map<ir::Op, int> count;
  for (const Case& c : all_cases()) ++count[c.op];
  for (ir::Op op : complex_table_ops()) ++count[op];  // issue 4: rows in cases_complex.cpp
  for (const ir::OpInfo& info : ir::all_ops()) {
    if (info.op == ir::Op::input) continue;  // every case has inputs
    INFO("op " << info.name);
    CHECK(count[info.op] > 0);
  }
}

// The reference is only as good as its own building blocks; these pin them to known values.
TEST_CASE("reference: Philox4x32-10 matches Random123's known answers", "[conformance]") {
  Philox a = philox4x32_10(0, 0, 0, 0, 0, 0);
  CHECK(a.r[0] == 0x6627e8d5u);
  CHECK(a.r[1] == 0xe169c58du);
  CHECK(a.r[2] == 0xbc57ac4cu);
  CHECK(a.r[3] == 0x9b00dbd8u);
  Philox b = philox4x32_10(~0u, ~0u, ~0u, ~0u, ~0u, ~0u);
  CHECK(b.r[0] == 0x408f276du);
  CHECK(b.r[1] == 0x41c83b0eu);
  CHECK(b.r[2] == 0xa20bc7c6u);
  CHECK(b.r[3] == 0x6d5451fdu);
  Philox c = philox4x32_10(0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822, 0x299f31d0);
  CHECK(c.r[0] == 0xd16cfe09u);
  CHECK(c.r[1] == 0x94fdccebu);
  CHECK(c.r[2] == 0x5001e420u);
  CHECK(c.r[3] == 0x24126ea1u);
  // Different seeds give different streams; rand stays in [0, 1).
  int same = 0;
  for (int64_t i = 0; i < 1000; ++i) {
    same += rand_value(DType::Float32, 1, i) == rand_value(DType::Float32, 2, i);
    CHECK(rand_value(DType::BFloat16, 7, i) < 1.0);
  }
  CHECK(same < 5);
}

TEST_CASE("reference: rounding to float16 and bfloat16 is nearest-even", "[conformance]") {
  CHECK(round_to(DType::Float16, 1.0 + 0x1p-11) == 1.0);               // tie -> even
  CHECK(round_to(DType::Float16, 1.0 + 3 * 0x1p-11) == 1.0 + 0x1p-9);  // tie -> even (up)
  CHECK(round_to(DType::Float16, 65519.0) == 65504.0);
  CHECK(std::isinf(round_to(DType::Float16, 65520.0)));
  CHECK(round_to(DType::Float16, 0x1p-25) == 0.0);        // tie with 0 -> 0
  CHECK(round_to(DType::Float16, 0x1.8p-25) == 0x1p-24);  // smallest subnormal
  CHECK(round_to(DType::BFloat16, 1.0 + 0x1p-8) == 1.0);
  CHECK(round_to(DType::BFloat16, 1.0 + 0x1.8p-8) == 1.0 + 0x1p-7);
  // Bytes round-trip for every float16 bit pattern that is a number.
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    uint16_t h = static_cast<uint16_t>(bits);
    std::vector<std::byte> raw = {std::byte(h & 0xff), std::byte(h >> 8)};
    RefTensor t = decode(DType::Float16, {1}, raw);
    if (std::isnan(t.f[0])) continue;
    CHECK(round_to(DType::Float16, t.f[0]) == t.f[0]);
    CHECK(encode(t) == raw);
  }
}

TEST_CASE("reference: promotion and cast rules of docs/ops.md", "[conformance]") {
  CHECK(ref_promote(DType::Int8, DType::UInt8) == DType::Int16);
  CHECK(ref_promote(DType::UInt8, DType::Int32) == DType::Int32);
  CHECK(ref_promote(DType::Float16, DType::BFloat16) == DType::Float32);
  CHECK(ref_promote(DType::Int64, DType::Float16) == DType::Float16);
  CHECK(ref_promote(DType::Bool, DType::Int8) == DType::Int8);
  // The IR's promotion table must agree with the reference for every pair.
  for (DType a : kAllDTypes) {
    for (DType b : kAllDTypes) {
      INFO(ir::name(a) << " + " << ir::name(b));
      CHECK(ir::promote(a, b) == ref_promote(a, b));
    }
  }
  CHECK(cast_to(DType::Int8, Num::of_float(-2.9)).i == -2);
  CHECK(cast_to(DType::Int8, Num::of_float(1e10)).i == 127);
  CHECK(cast_to(DType::UInt8, Num::of_float(-5.0)).i == 0);
  CHECK(cast_to(DType::Int64, Num::of_float(1e19)).i == INT64_MAX);
  CHECK(cast_to(DType::Int32, Num::of_float(NAN)).i == 0);
  CHECK(cast_to(DType::UInt8, Num::of_int(-1)).i == 255);
  CHECK(cast_to(DType::Int8, Num::of_int(200)).i == -56);
  CHECK(cast_to(DType::Bool, Num::of_float(NAN)).i == 1);
  CHECK(std::isinf(cast_to(DType::Float16, Num::of_float(1e5)).f));
}

TEST_CASE("compare: tolerances, NaN positions and infinities", "[conformance]") {
  Expected e{RefTensor(DType::Float32, {4})};
  e.value.f = {1.0, NAN, INFINITY, 0.0};
  RefTensor got = e.value;
  CHECK(compare(e, got, Accuracy::Exact).empty());
  got.f[0] = 1.0 + 1e-7;
  CHECK(!compare(e, got, Accuracy::Exact).empty());
  CHECK(compare(e, got, Accuracy::Rounded).empty());
  got.f[0] = 1.0;
  got.f[1] = 0.0;
  CHECK(!compare(e, got, Accuracy::Transcendental).empty());  // NaN must stay NaN
  got.f[1] = NAN;
  got.f[2] = 3e38;
  CHECK(!compare(e, got, Accuracy::Accumulated).empty());  // inf must be exact
  got.f[2] = INFINITY;
  got.f[3] = NAN;
  CHECK(!compare(e, got, Accuracy::Accumulated).empty());  // no NaN where a number is due
}

}  // namespace
}  // namespace tensord::conformance
