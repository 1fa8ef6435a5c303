#include "server/device_bytes.h"

#include "engine/ir/error.h"

namespace tensord::server {

engine::TensorValue upload_device_bytes(engine::Backend& backend, const ir::TensorType& type,
                                        const uint8_t* bytes) {
  size_t n = type.nbytes();
  auto buffer = backend.allocate(n);
  if (n != 0) backend.write(*buffer, 0, bytes, n);
  return engine::TensorValue::contiguous(std::move(buffer), type);
}

void read_device_bytes_into(engine::Backend& backend, const engine::TensorValue& value,
                            uint64_t offset, uint8_t* out, uint64_t length) {
  if (!value.is_contiguous()) {
    throw Error(ErrorCode::Internal, "a daemon-held tensor is not contiguous");
  }
  size_t base = static_cast<size_t>(value.offset) * ir::itemsize(value.type.dtype);
  if (length != 0) backend.read(*value.buffer, base + offset, out, length);
}

}  // namespace tensord::server
