// Kernel scratch in the memory ledger (issue 7): the temporaries CPU kernels allocate for
// themselves are tracked under the step's site while its session records memory, and freed by
// the end of the kernel; without a site nothing is tracked.
#include <catch2/catch.hpp>

#include <algorithm>
#include <memory>
#include <thread>
#include <vector>

#include "engine/backends/cpu/kernels.h"
#include "engine/backends/cpu/scratch.h"
#include "engine/profiler/compact.h"
#include "tests/support/profiler/drain.h"
#include "tests/unit/cpu/cpu_test_support.h"

using tensord::test::drain;

using namespace tensord::cpu;
using namespace tensord::cpu::test;
namespace profiler = tensord::profiler;
namespace engine = tensord::engine;
namespace ir = tensord::ir;

namespace {

constexpr size_t kScratch = static_cast<size_t>(profiler::MemoryCategory::Scratch);

std::shared_ptr<profiler::Profiler> recording(uint64_t session) {
  auto p = std::make_shared<profiler::Profiler>(session);
  p->start({.trace = false, .memory = true, .capacity = 1 << 20});
  return p;
}

profiler::AllocSite step_site(const std::shared_ptr<profiler::Profiler>& p, const char* op,
                              uint32_t line) {
  profiler::AllocSite site;
  site.profiler = p;
  site.request = 3;
  site.op = op;
  site.file = "model.py";
  site.line = line;
  site.category = profiler::MemoryCategory::Scratch;
  return site;
}

// diag(2, 1, 1, ...) plus a small off-diagonal part below the diagonal: det is 2.
TensorValue matrix(engine::Backend& backend, int64_t n) {
  std::vector<double> a(static_cast<size_t>(n * n), 0.0);
  for (int64_t i = 0; i < n; ++i) {
    a[i * n + i] = i == 0 ? 2.0 : 1.0;
    if (i > 0) a[i * n + i - 1] = 0.25;
  }
  return tensor<double>(backend, {n, n}, a);
}

// Every Alloc of category scratch has its Free, of the same bytes; returns them.
std::vector<profiler::Record> scratch_allocs(const profiler::Trace& t) {
  std::vector<profiler::Record> allocs;
  int64_t balance = 0;
  for (const profiler::Record& r : t.records) {
    if (static_cast<profiler::MemoryCategory>(r.stage) != profiler::MemoryCategory::Scratch) {
      continue;
    }
    if (r.kind == profiler::RecordKind::Alloc) {
      allocs.push_back(r);
      balance += static_cast<int64_t>(r.bytes);
    } else if (r.kind == profiler::RecordKind::Free) {
      balance -= static_cast<int64_t>(r.bytes);
    }
  }
  CHECK(balance == 0);
  return allocs;
}

}  // namespace

TEST_CASE("a LAPACK kernel's work array is scratch under the step's op and line") {
  CpuBackend backend(2);
  auto ledger = std::make_shared<profiler::MemoryLedger>();
  backend.set_memory_ledger(ledger);
  auto prof = recording(7);
  const int64_t n = 128;  // work: n * n doubles = 128 KiB
  TensorValue a = matrix(backend, n);
  const ir::Node det = node(Op::det, {DType::Float64, {}});

  profiler::AllocSite site = step_site(prof, "det", 42);
  backend.set_step_site(&site);
  TensorValue y = run(backend, det, {a});
  backend.set_step_site(nullptr);
  CHECK(values<double>(y)[0] == Approx(2.0));

  const profiler::LedgerTotals totals = ledger->totals();
  CHECK(totals.allocs >= 1);
  CHECK(totals.allocs == totals.frees);
  CHECK(totals.live_by_category[kScratch] == 0);
  const profiler::Trace t = drain(*prof);
  const std::vector<profiler::Record> allocs = scratch_allocs(t);
  REQUIRE(!allocs.empty());
  bool work = false;
  for (const profiler::Record& r : allocs) {
    CHECK(t.str(r.name) == "det");
    CHECK(t.str(r.file) == "model.py");
    CHECK(r.line == 42);
    CHECK(r.request == 3);
    CHECK(r.session == 7);
    CHECK(r.bytes >= kScratchMinBytes);
    work = work || r.bytes == static_cast<uint64_t>(n * n) * sizeof(double);
  }
  CHECK(work);
}

TEST_CASE("LAPACK's own work arrays (sized by its workspace query) are scratch too") {
  CpuBackend backend(1);
  auto ledger = std::make_shared<profiler::MemoryLedger>();
  backend.set_memory_ledger(ledger);
  auto prof = recording(12);
  const int64_t n = 128;
  TensorValue a = matrix(backend, n);  // lower triangular with diagonal (2, 1, 1, ...)
  profiler::AllocSite site = step_site(prof, "eigh", 9);
  // The lower triangle is read: the symmetric matrix with 0.25 beside the diagonal.
  ir::Node eigh = node(Op::eigh, {DType::Float64, {n}});
  eigh.outputs.push_back({DType::Float64, {n, n}});
  std::vector<TensorValue> outs = {empty(backend, eigh.outputs[0]),
                                   empty(backend, eigh.outputs[1])};
  backend.set_step_site(&site);
  backend.run(eigh, std::vector{a}, outs);
  backend.set_step_site(nullptr);
  const std::vector<double> eig = values<double>(outs[0]);
  CHECK(eig.back() < 2.5);
  CHECK(ledger->totals().live_bytes == 0);
  uint64_t largest = 0;
  for (const profiler::Record& r : scratch_allocs(drain(*prof)))
    largest = std::max(largest, r.bytes);
  // syevd's work array for eigenvectors, 2n^2 + 6n + 1 doubles, is larger than the kernel's own
  // copy of the matrix (n * n): LAPACK asked for it and the kernel gave it as scratch.
  CHECK(largest >= static_cast<uint64_t>(2 * n * n + 6 * n + 1) * sizeof(double));
}

TEST_CASE("a sort's keys and permutations are scratch, from every OpenMP thread") {
  CpuBackend backend(2);
  auto ledger = std::make_shared<profiler::MemoryLedger>();
  backend.set_memory_ledger(ledger);
  auto prof = recording(8);
  const int64_t rows = 4, n = 32768;
  std::vector<float> x(static_cast<size_t>(rows * n));
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i * 7919) % 1000);
  TensorValue in = tensor<float>(backend, {rows, n}, x);
  ir::Node sort = node(Op::sort, {DType::Float32, {rows, n}}, {{Attr::axis, int64_t{1}}});
  sort.outputs.push_back({DType::Int64, {rows, n}});
  std::vector<TensorValue> outs = {empty(backend, sort.outputs[0]),
                                   empty(backend, sort.outputs[1])};

  profiler::AllocSite site = step_site(prof, "sort", 5);
  backend.set_step_site(&site);
  backend.run(sort, std::vector{in}, outs);
  backend.set_step_site(nullptr);
  const std::vector<float> sorted = values<float>(outs[0]);
  for (int64_t k = 1; k < n; ++k) REQUIRE(sorted[k - 1] <= sorted[k]);

  CHECK(ledger->totals().live_bytes == 0);
  const std::vector<profiler::Record> allocs = scratch_allocs(drain(*prof));
  // Each chunk of rows holds n int64 indices and n keys.
  bool indices = false;
  for (const profiler::Record& r : allocs) indices = indices || r.bytes == n * sizeof(int64_t);
  CHECK(indices);
}

TEST_CASE("without a step site kernel scratch stays out of the ledger") {
  CpuBackend backend(1);
  auto ledger = std::make_shared<profiler::MemoryLedger>();
  backend.set_memory_ledger(ledger);
  auto prof = recording(9);
  TensorValue y = run(backend, node(Op::det, {DType::Float64, {}}), {matrix(backend, 128)});
  CHECK(values<double>(y)[0] == Approx(2.0));
  CHECK(ledger->totals().allocs == 0);
  CHECK(drain(*prof).records.empty());
}

TEST_CASE("scratch below the threshold is not tracked; a tracked vector frees with its life") {
  auto ledger = std::make_shared<profiler::MemoryLedger>();
  auto prof = recording(10);
  profiler::AllocSite site = step_site(prof, "cumsum", 1);
  const ScratchSite where{ledger.get(), &site};
  CHECK(!where.track(kScratchMinBytes - 1, nullptr).tracked());
  CHECK(!ScratchSite{ledger.get(), nullptr}.track(kScratchMinBytes, nullptr).tracked());
  CHECK(!ScratchSite{nullptr, &site}.track(kScratchMinBytes, nullptr).tracked());
  {
    ScratchVector<double> v(where, kScratchMinBytes / sizeof(double));
    CHECK(ledger->totals().live_by_category[kScratch] == kScratchMinBytes);
    CHECK(ledger->snapshot(10).at(0).address == reinterpret_cast<uintptr_t>(v.data()));
    ScratchVector<double> moved = std::move(v);
    CHECK(ledger->totals().live_bytes == kScratchMinBytes);  // the move keeps one block
  }
  CHECK(ledger->totals().live_bytes == 0);
  CHECK(ledger->totals().frees == 1);
  {
    auto buffer = scratch_buffer(where, 1 << 20);
    CHECK(ledger->totals().live_by_category[kScratch] == (1u << 20));
  }
  CHECK(ledger->totals().live_bytes == 0);
}

TEST_CASE("a oneDNN convolution's scratchpad and own layouts are scratch, freed by its end") {
  CpuBackend backend(2);
  auto ledger = std::make_shared<profiler::MemoryLedger>();
  backend.set_memory_ledger(ledger);
  auto prof = recording(11);
  std::vector<float> x(16 * 64 * 64, 1.0f), w(32 * 16 * 3 * 3, 0.5f);
  TensorValue in = tensor<float>(backend, {1, 16, 64, 64}, x);
  TensorValue weight = tensor<float>(backend, {32, 16, 3, 3}, w);
  const ir::Node conv = node(Op::conv2d, {DType::Float32, {1, 32, 62, 62}});
  profiler::AllocSite site = step_site(prof, "conv2d", 8);
  backend.set_step_site(&site);
  TensorValue y = run(backend, conv, {in, weight});
  backend.set_step_site(nullptr);
  CHECK(values<float>(y)[0] == Approx(16 * 9 * 0.5f));
  CHECK(ledger->totals().live_bytes == 0);
  const std::vector<profiler::Record> allocs = scratch_allocs(drain(*prof));
  for (const profiler::Record& r : allocs) UNSCOPED_INFO("scratch " << r.bytes);
  CHECK(!allocs.empty());
}

TEST_CASE("scratch that cannot be allocated fails with the ledger's report") {
  auto ledger = std::make_shared<profiler::MemoryLedger>();
  auto prof = recording(13);
  profiler::AllocSite held = step_site(prof, "matmul", 3);
  held.category = profiler::MemoryCategory::Tensor;
  profiler::BlockTicket tensor = ledger->track(1 << 20, held);
  profiler::AllocSite site = step_site(prof, "cumsum", 4);
  const ScratchSite where{ledger.get(), &site};
  try {
    scratch_buffer(where, size_t{1} << 62);
    FAIL("allocated 4 EiB");
  } catch (const tensord::Error& e) {
    CHECK(e.code() == tensord::ErrorCode::OutOfMemory);
    const std::string m = e.message();
    CHECK(m.find("kernel scratch") != std::string::npos);
    CHECK(m.find("requested by model.py:4 (cumsum)") != std::string::npos);
    CHECK(m.find("model.py:3 (matmul)") != std::string::npos);  // what holds memory
  }
  // Untracked, the allocator's own error.
  try {
    scratch_buffer(ScratchSite{}, size_t{1} << 62);
    FAIL("allocated 4 EiB");
  } catch (const tensord::Error& e) {
    CHECK(e.code() == tensord::ErrorCode::OutOfMemory);
    CHECK(e.message().find("requested by") == std::string::npos);
  }
}

TEST_CASE("a scan's running accumulators are scratch, one block per chunk of lines") {
  CpuBackend backend(2);
  auto ledger = std::make_shared<profiler::MemoryLedger>();
  backend.set_memory_ledger(ledger);
  auto prof = recording(14);
  const int64_t n = 4, inner = 16384;  // along axis 0: 16384 running sums of 4 steps
  TensorValue in = tensor<float>(backend, {n, inner}, std::vector<float>(n * inner, 1.0f));
  profiler::AllocSite site = step_site(prof, "cumsum", 6);
  backend.set_step_site(&site);
  TensorValue y = run(
      backend, node(Op::cumsum, {DType::Float32, {n, inner}}, {{Attr::axis, int64_t{0}}}), {in});
  backend.set_step_site(nullptr);
  CHECK(values<float>(y).back() == 4.0f);
  CHECK(ledger->totals().live_bytes == 0);
  const std::vector<profiler::Record> allocs = scratch_allocs(drain(*prof));
  REQUIRE(!allocs.empty());
  for (const profiler::Record& r : allocs) CHECK(r.bytes >= static_cast<uint64_t>(inner) * 4);
}
