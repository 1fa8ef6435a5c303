// Copies between host bytes and device tensors. Worker thread only (these touch device memory),
// except read_host_bytes_into.
#pragma once

#include <cstdint>

#include "engine/exec/backend.h"
#include "engine/exec/tensor_value.h"

namespace tensord::server {

// A new contiguous device tensor holding `bytes` (exactly type.nbytes() of them).
engine::TensorValue upload_device_bytes(engine::Backend& backend, const ir::TensorType& type,
                                        const uint8_t* bytes);

// Bytes [offset, offset + length) of a contiguous tensor into `out`. Throws Internal for a
// strided one.
void read_device_bytes_into(engine::Backend& backend, const engine::TensorValue& value,
                            uint64_t offset, uint8_t* out, uint64_t length);

// Whether a device's tensors live in host memory (the CPU backend): then a finished tensor's
// bytes can be read from any thread, since nothing writes a tensor once its run has ended.
bool in_host_memory(const engine::DeviceInfo& device);

// read_device_bytes_into for a tensor in host memory, on any thread.
void read_host_bytes_into(const engine::TensorValue& value, uint64_t offset, uint8_t* out,
                          uint64_t length);

}  // namespace tensord::server
