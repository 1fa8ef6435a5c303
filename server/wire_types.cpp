#include "server/wire_types.h"

#include <string>

#include "engine/ir/error.h"

namespace tensord::server {

ir::DType dtype_from_wire(capnp::Text::Reader name) {
  auto dtype = ir::dtype_from_name(std::string_view(name.cStr(), name.size()));
  if (!dtype) {
    throw Error(ErrorCode::InvalidGraph, "unknown dtype '" + std::string(name.cStr()) + "'");
  }
  return *dtype;
}

ir::Shape shape_from_wire(capnp::List<int64_t>::Reader shape) {
  if (shape.size() > ir::kMaxRank) {
    throw Error(ErrorCode::InvalidGraph, "rank " + std::to_string(shape.size()) +
                                             " exceeds the limit of " +
                                             std::to_string(ir::kMaxRank));
  }
  ir::Shape out;
  out.reserve(shape.size());
  for (int64_t d : shape) out.push_back(d);
  return out;
}

void normalize_bools(uint8_t* bytes, size_t n) {
  for (size_t i = 0; i < n; ++i) bytes[i] = bytes[i] != 0;
}

void shape_to_wire(const ir::Shape& shape, capnp::List<int64_t>::Builder out) {
  for (size_t i = 0; i < shape.size(); ++i) out.set(i, shape[i]);
}

uint64_t checked_tensor_bytes(const ir::TensorType& type, uint64_t max_bytes) {
  // As in the engine's inference, the product of the non-zero dimensions must fit in int64 even
  // when another dimension is zero, so that the tensor is a valid engine input.
  int64_t nonzero = 1;
  bool overflow = false;
  bool empty = false;
  for (int64_t d : type.shape) {
    if (d < 0) {
      throw Error(ErrorCode::Shape, "negative dimension in shape " + ir::to_string(type.shape));
    }
    if (d == 0) empty = true;
    if (d > 0) overflow |= __builtin_mul_overflow(nonzero, d, &nonzero);
  }
  int64_t bytes = 0;
  overflow |=
      __builtin_mul_overflow(nonzero, static_cast<int64_t>(ir::itemsize(type.dtype)), &bytes);
  if (overflow) {
    throw Error(ErrorCode::OutOfMemory,
                ir::to_string(type) + " has more bytes than int64 can count");
  }
  if (empty) return 0;
  if (static_cast<uint64_t>(bytes) > max_bytes) {
    throw Error(ErrorCode::OutOfMemory, ir::to_string(type) + " needs " + std::to_string(bytes) +
                                            " bytes, above this daemon's limit of " +
                                            std::to_string(max_bytes) +
                                            " bytes per tensor (--max-tensor-bytes)");
  }
  return static_cast<uint64_t>(bytes);
}

}  // namespace tensord::server
