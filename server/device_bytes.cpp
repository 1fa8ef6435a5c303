#include "server/device_bytes.h"

#include <cstring>

#include "engine/ir/error.h"

namespace tensord::server {

engine::TensorValue upload_device_bytes(engine::Backend& backend, const ir::TensorType& type,
                                        const uint8_t* bytes) {
  size_t n = type.nbytes();
  auto buffer = backend.allocate(n);
  if (n != 0) backend.write(*buffer, 0, bytes, n);
  return engine::TensorValue::contiguous(std::move(buffer), type);
}

namespace {

// Where the tensor's bytes start in its buffer.
size_t byte_base(const engine::TensorValue& value) {
  if (!value.is_contiguous()) {
    throw Error(ErrorCode::Internal, "a daemon-held tensor is not contiguous");
  }
  return static_cast<size_t>(value.offset) * ir::itemsize(value.type.dtype);
}

}  // namespace

void read_device_bytes_into(engine::Backend& backend, const engine::TensorValue& value,
                            uint64_t offset, uint8_t* out, uint64_t length) {
  size_t base = byte_base(value);
  if (length != 0) backend.read(*value.buffer, base + offset, out, length);
}

bool in_host_memory(const engine::DeviceInfo& device) {
  return device.kind == "cpu";
}

void read_host_bytes_into(const engine::TensorValue& value, uint64_t offset, uint8_t* out,
                          uint64_t length) {
  size_t base = byte_base(value);
  if (base + offset + length > value.buffer->bytes()) {
    throw Error(ErrorCode::Internal, "a read past the end of a tensor's buffer");
  }
  if (length != 0)
    std::memcpy(out, static_cast<const uint8_t*>(value.buffer->data()) + base + offset, length);
}

}  // namespace tensord::server
