// The memory recorder's categories on a GPU add up to what the device says is used: after the
// context baseline (the CUDA context, the libraries' handles and the kernels loaded by a
// warm-up run, none of which an allocator owns), every byte the backend takes is in the ledger:
// the caching allocator's segments (tensors, the cuBLASLt workspace, library workspaces,
// graph pools inside them), while the pinned staging buffer is host memory in its own category.
#include <cuda_runtime_api.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <memory>
#include <vector>

#include "engine/backends/cuda/caching_allocator.h"
#include "engine/backends/cuda/cuda_backend.h"
#include "engine/exec/engine.h"
#include "engine/profiler/memory_ledger.h"

namespace tensord::cuda::test {
namespace {

using Ints = std::vector<int64_t>;
using profiler::MemoryCategory;

uint64_t device_used() {
  size_t free = 0, total = 0;
  REQUIRE(cudaMemGetInfo(&free, &total) == cudaSuccess);
  return total - free;
}

// A matmul, a reduction and a captured plan: cuBLASLt, kernels with scratch, a graph pool.
std::vector<engine::TensorValue> workload(CudaBackend& cuda, engine::Engine& engine, int64_t n) {
  ir::Graph g;
  const ir::TensorType t{ir::DType::Float32, ir::Shape{n, n}};
  auto a = g.add_input(0, t);
  auto b = g.add_input(1, t);
  auto m = g.add(ir::Op::matmul, {a, b});
  std::vector<ir::ValueRef> outs{
      m, g.add(ir::Op::sum, {g.add(ir::Op::exp, {m})}, {{ir::Attr::axes, Ints{1}}})};
  std::vector<float> host(static_cast<size_t>(n * n), 0.001f);
  std::vector<engine::TensorValue> in;
  for (int i = 0; i < 2; ++i) {
    auto buffer = cuda.allocate(host.size() * sizeof(float));
    cuda.write(*buffer, 0, host.data(), host.size() * sizeof(float));
    in.push_back(engine::TensorValue::contiguous(buffer, t));
  }
  std::vector<engine::TensorValue> kept;
  for (int run = 0; run < 3; ++run) {
    for (auto& v : engine.run(g, in, outs, engine::CompileMode::ReduceOverhead)) {
      kept.push_back(std::move(v));
    }
  }
  cuda.synchronize();
  return kept;
}

}  // namespace

TEST_CASE("the ledger's device total matches cudaMemGetInfo's used bytes above the baseline") {
  const CudaDeviceProperties device = discover_cuda_devices().devices.at(0);
  REQUIRE(cudaSetDevice(device.index) == cudaSuccess);
  REQUIRE(cudaFree(nullptr) == cudaSuccess);  // the context exists before the baseline
  auto ledger = std::make_shared<profiler::MemoryLedger>();
  CudaBackend cuda(device);
  cuda.set_memory_ledger(ledger);
  engine::Engine engine(cuda);
  {
    auto warm = workload(cuda, engine, 256);  // handles, loaded kernels, plan caches
  }
  cuda.allocator().empty_cache();
  cuda.synchronize();
  // What the device uses that no allocator owns: the context, library handles, modules.
  const uint64_t baseline = device_used() - ledger->totals().device_reserved_bytes();

  const profiler::LedgerTotals before = ledger->totals();
  CHECK(before.live_by_category[static_cast<size_t>(MemoryCategory::Workspace)] >= 32u << 20);
  CHECK(before.reserved_by_category[static_cast<size_t>(MemoryCategory::Staging)] >= 8u << 20);

  auto kept = workload(cuda, engine, 2048);  // 16 MiB per matrix: new segments
  const profiler::LedgerTotals after = ledger->totals();
  CHECK(after.device_reserved_bytes() > before.device_reserved_bytes() + (32u << 20));
  CHECK(after.reserved_bytes - after.device_reserved_bytes() ==
        after.reserved_by_category[static_cast<size_t>(MemoryCategory::Staging)]);
  CHECK(after.device_reserved_bytes() ==
        static_cast<uint64_t>(cuda.allocator_stats().reserved_bytes.current));
  // cudaMalloc maps whole 2 MiB pages; a graph's executable may take a little device memory.
  const auto used = static_cast<int64_t>(device_used() - baseline);
  const auto books = static_cast<int64_t>(after.device_reserved_bytes());
  INFO("device used above the baseline " << used << ", ledger " << books);
  CHECK(std::llabs(used - books) <= int64_t{4} << 20);
  // Idle buffers of the captured plans are in the graph pool's category.
  CHECK(after.live_by_category[static_cast<size_t>(MemoryCategory::GraphPool)] > 0);
}

}  // namespace tensord::cuda::test
