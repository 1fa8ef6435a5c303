#include "tests/unit/cuda/allocator_fixture.h"

namespace tensord::cuda::test {

std::unique_ptr<SegmentSource> make_segment_source(size_t capacity) {
  return std::make_unique<HostSegmentSource>(capacity);
}

}  // namespace tensord::cuda::test
