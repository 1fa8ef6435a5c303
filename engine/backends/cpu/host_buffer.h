// Host memory owned by the CPU backend.
#pragma once

#include <cstddef>
#include <memory>

#include "engine/exec/tensor_value.h"

namespace tensord::cpu {

// 64-byte aligned (a cache line, and the widest vector load) and freed in the destructor.
class HostBuffer final : public engine::Buffer {
 public:
  static constexpr size_t kAlignment = 64;

  explicit HostBuffer(size_t bytes);  // throws tensord::Error(OutOfMemory)
  ~HostBuffer() override;
};

std::shared_ptr<engine::Buffer> allocate_host(size_t bytes);

// A fresh contiguous value of `type` (scratch space for kernels).
engine::TensorValue allocate_value(const ir::TensorType& type);

}  // namespace tensord::cpu
