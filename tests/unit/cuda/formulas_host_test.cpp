// The CUDA formula table's semantics without a GPU: every supported (op, dtypes) combination,
// written by cuda_expr and compiled as host C++ (formulas_host_gen.cpp, formulas_host_shim.h),
// against the CPU backend's kernels over edge and random values. This checks what the table
// decides (conversions, integer edge cases, NaN and infinity branches, the ported special
// functions); the accuracy of CUDA's own math functions is the GPU test's
// (formulas_gpu_test.cpp).
#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "tests/unit/cuda/formula_cases.h"

namespace tensord::codegen::test {

struct HostFormula {
  const char* name;
  void (*fn)(void* const*, const void* const*, long long);
};
extern const HostFormula kHostFormulas[];

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

}  // namespace
}  // namespace tensord::codegen::test
