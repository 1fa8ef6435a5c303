// The segment source the allocator tests run over: host memory in the unit binary, cudaMalloc
// in the gpu binary, so that the same rules are checked on a device.
#pragma once

#include <memory>

#include "engine/backends/cuda/segment_source.h"

namespace tensord::cuda::test {

// A segment source that refuses segments past `capacity` bytes in use.
std::unique_ptr<SegmentSource> make_segment_source(size_t capacity);

}  // namespace tensord::cuda::test
