// Dtypes, shapes and tensor sizes between the wire and the IR, with the checks an untrusted
// message needs before the daemon allocates anything.
#pragma once

#include <capnp/list.h>

#include <cstdint>

#include "engine/ir/dtype.h"
#include "engine/ir/shape.h"

namespace tensord::server {

// Throws tensord::Error(InvalidGraph) naming the bad dtype.
ir::DType dtype_from_wire(capnp::Text::Reader name);

// Throws InvalidGraph for a rank above ir::kMaxRank; dimensions are checked by
// checked_tensor_bytes.
ir::Shape shape_from_wire(capnp::List<int64_t>::Reader shape);

void shape_to_wire(const ir::Shape& shape, capnp::List<int64_t>::Builder out);

// The byte size of a tensor of `type`. Throws Shape for a negative dimension and OutOfMemory
// when the size overflows or exceeds `max_bytes` (the daemon's --max-tensor-bytes).
uint64_t checked_tensor_bytes(const ir::TensorType& type, uint64_t max_bytes);

// Client bytes of a bool tensor may hold any value; kernels read them as C++ bool, for which
// anything but 0 and 1 is undefined. Makes every nonzero byte a 1 (so it reads as true).
void normalize_bools(uint8_t* bytes, size_t n);

}  // namespace tensord::server
