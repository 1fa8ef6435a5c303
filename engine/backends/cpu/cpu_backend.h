// The CPU backend: host memory, oneDNN matmul, and our own kernels for everything else.
#pragma once

#include <memory>

#include "engine/exec/backend.h"

namespace tensord::cpu {

class Matmul;

class CpuBackend final : public engine::Backend {
 public:
  // threads <= 0: every hardware thread.
  explicit CpuBackend(int threads);
  ~CpuBackend() override;
  CpuBackend(const CpuBackend&) = delete;
  CpuBackend& operator=(const CpuBackend&) = delete;

  const engine::DeviceInfo& info() const override { return info_; }
  std::shared_ptr<engine::Buffer> allocate(size_t bytes) override;
  void run(const ir::Node& node, std::span<const engine::TensorValue> inputs,
           std::span<const engine::TensorValue> outputs) override;
  void write(engine::Buffer& dst, size_t offset, const void* src, size_t n) override;
  void read(const engine::Buffer& src, size_t offset, void* dst, size_t n) override;

 private:
  engine::DeviceInfo info_;
  std::unique_ptr<Matmul> matmul_;  // oneDNN engine, stream and primitive cache
};

}  // namespace tensord::cpu
