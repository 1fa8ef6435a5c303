#include "engine/backends/cpu/cpu_backend.h"

#include <unistd.h>

#include <cstring>
#include <fstream>
#include <string>
#include <thread>

#include "engine/backends/cpu/epilogue_tuning.h"
#include "engine/backends/cpu/host_block_cache.h"
#include "engine/backends/cpu/host_buffer.h"
#include "engine/backends/cpu/kernels.h"
#include "engine/backends/cpu/kernels_complex.h"
#include "engine/backends/cpu/launch_tuning.h"
#include "engine/backends/cpu/matmul.h"

namespace tensord::cpu {
namespace {

std::string cpu_model_name() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) == 0) {
      size_t colon = line.find(':');
      if (colon == std::string::npos) break;
      size_t start = line.find_first_not_of(" \t", colon + 1);
      return start == std::string::npos ? std::string() : line.substr(start);
    }
  }
  return "unknown CPU";
}

uint64_t physical_memory() {
  long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page_size > 0 ? static_cast<uint64_t>(pages) * page_size : 0;
}

void check_range(size_t buffer_bytes, size_t offset, size_t n) {
  if (offset > buffer_bytes || n > buffer_bytes - offset) {
    throw Error(ErrorCode::Internal, "byte range [" + std::to_string(offset) + ", " +
                                         std::to_string(offset) + " + " + std::to_string(n) +
                                         ") is outside a buffer of " +
                                         std::to_string(buffer_bytes) + " bytes");
  }
}

void check_arity(const ir::Node& node, size_t inputs, size_t want) {
  if (inputs != want) {
    throw Error(ErrorCode::Internal, std::string(ir::name(node.op)) + " got " +
                                         std::to_string(inputs) + " inputs, wants " +
                                         std::to_string(want));
  }
}

}  // namespace

CpuBackend::CpuBackend(int threads)
    : matmul_(std::make_unique<Matmul>()), fft_(std::make_unique<FftPlanner>()) {
  if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  info_.kind = "cpu";
  info_.index = 0;
  info_.threads = threads;
  run_threads_ = threads;
  info_.name = cpu_model_name() + " (" + std::to_string(threads) + " threads)";
  info_.total_memory = physical_memory();
  blocks_ = std::make_unique<HostBlockCache>(default_host_cache_bytes(info_.total_memory));
}

CpuBackend::CpuBackend(int threads, std::shared_ptr<cache::KernelCache> kernels)
    : CpuBackend(threads) {
  kernels_ = std::move(kernels);
}

CpuBackend::~CpuBackend() = default;

std::shared_ptr<engine::Buffer> CpuBackend::allocate(size_t bytes) {
  // A request beyond the machine's memory fails here rather than inside an overcommitting
  // (or sanitizer's) allocator.
  if (info_.total_memory != 0 && bytes > info_.total_memory) {
    throw Error(ErrorCode::OutOfMemory, "cannot allocate " + std::to_string(bytes) +
                                            " bytes on the CPU (it has " +
                                            std::to_string(info_.total_memory) + ")");
  }
  return blocks_->allocate(bytes);
}

engine::DeviceMemoryStats CpuBackend::memory_stats() const {
  const HostBlockCache::Stats s = blocks_->stats();
  engine::DeviceMemoryStats out;
  out.host_cache = engine::HostCacheMemoryStats{s.cached_bytes, s.hits, s.misses, s.evictions};
  return out;
}

void CpuBackend::set_segment_observer(std::shared_ptr<profiler::SegmentObserver> observer) {
  blocks_->set_observer(std::move(observer));
}

void CpuBackend::set_memory_ledger(std::shared_ptr<profiler::MemoryLedger> ledger) {
  set_segment_observer(ledger);
  ledger_ = std::move(ledger);
}

KernelContext CpuBackend::context() const {
  KernelContext ctx;
  ctx.threads = run_threads_;
  ctx.blocks = blocks_.get();
  if (step_site_ != nullptr) [[unlikely]]
    ctx.scratch = ScratchSite{ledger_.get(), step_site_};
  return ctx;
}

void CpuBackend::write(engine::Buffer& dst, size_t offset, const void* src, size_t n) {
  check_range(dst.bytes(), offset, n);
  if (n) std::memcpy(static_cast<char*>(dst.data()) + offset, src, n);
}

void CpuBackend::copy(engine::Buffer& dst, size_t dst_offset, const engine::Buffer& src,
                      size_t src_offset, size_t n) {
  check_range(src.bytes(), src_offset, n);
  write(dst, dst_offset, static_cast<const char*>(src.data()) + src_offset, n);
}

void CpuBackend::read(const engine::Buffer& src, size_t offset, void* dst, size_t n) {
  check_range(src.bytes(), offset, n);
  if (n) std::memcpy(dst, static_cast<const char*>(src.data()) + offset, n);
}

void CpuBackend::run(const ir::Node& node, std::span<const engine::TensorValue> inputs,
                     std::span<const engine::TensorValue> outputs) {
  KernelContext ctx = context();
  if (outputs.size() != 1) return run_multi_output(ctx, node, inputs, outputs);
  const engine::TensorValue& out = outputs[0];
  // Issue 4: conj views reach only contiguous (which materialises them) and matmul (which folds
  // the bit into its loads); the planner copies them for every other consumer.
  for (const engine::TensorValue& v : inputs) {
    if (v.conj && node.op != ir::Op::contiguous && node.op != ir::Op::matmul) {
      throw Error(ErrorCode::Internal, std::string(ir::name(node.op)) +
                                           " got a conj view the planner should have copied");
    }
  }
  if (node.op == ir::Op::contiguous && !inputs.empty() && inputs[0].conj) {
    static const ir::Node kConj = [] {
      ir::Node n;
      n.op = ir::Op::conj;
      return n;
    }();
    return run_complex(ctx, kConj, inputs.first(1), out);
  }
  if (is_fft(node.op)) {  // issue 4: FFTW, its planner guarded by fft_'s mutex
    check_arity(node, inputs.size(), 1);
    return fft_->run(ctx, node, inputs[0], out);
  }
  switch (ir::op_info(node.op).kind) {
    case ir::OpKind::Creation:
      check_arity(node, inputs.size(), 0);
      return run_creation(ctx, node, out);
    case ir::OpKind::Unary:
      check_arity(node, inputs.size(), 1);
      return run_unary(ctx, node, inputs[0], out);
    case ir::OpKind::Binary:
      check_arity(node, inputs.size(), 2);
      return run_binary(ctx, node, inputs[0], inputs[1], out);
    case ir::OpKind::Ternary:
      check_arity(node, inputs.size(), 3);
      return run_where(ctx, inputs[0], inputs[1], inputs[2], out);
    case ir::OpKind::Reduction:
      check_arity(node, inputs.size(), 1);
      return run_reduction(ctx, node, inputs[0], out);
    case ir::OpKind::Movement:
      return run_movement(ctx, node, inputs, out);
    case ir::OpKind::Matmul:
      check_arity(node, inputs.size(), 2);
      return matmul_->run(ctx, inputs[0], inputs[1], out);
    case ir::OpKind::Input:
    case ir::OpKind::View:
    case ir::OpKind::Composite:
      break;
  }
  throw Error(ErrorCode::Unsupported, "the CPU backend does not run " +
                                          std::string(ir::name(node.op)) +
                                          " nodes (inputs, views and composites are the engine's)");
}

std::vector<engine::TensorValue> CpuBackend::run_data_dependent(
    const ir::Node& node, std::span<const engine::TensorValue> inputs) {
  KernelContext ctx = context();
  return cpu::run_data_dependent(ctx, node, inputs);
}

}  // namespace tensord::cpu
