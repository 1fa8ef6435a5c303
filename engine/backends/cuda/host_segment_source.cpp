#include <cstdlib>
#include <new>

#include "engine/backends/cuda/segment_source.h"
#include "engine/ir/error.h"

namespace tensord::cuda {

HostSegmentSource::~HostSegmentSource() = default;

void* HostSegmentSource::allocate(size_t bytes) {
  ++allocate_calls_;
  if (bytes > capacity_ - in_use_) return nullptr;
  void* p = std::aligned_alloc(512, (bytes + 511) / 512 * 512);
  if (p == nullptr) return nullptr;
  in_use_ += bytes;
  ++segments_;
  return p;
}

void HostSegmentSource::release(void* ptr, size_t bytes) {
  if (bytes > in_use_ || segments_ == 0) {
    throw Error(ErrorCode::Internal, "host segment source: release of " + std::to_string(bytes) +
                                         " bytes it did not hand out");
  }
  std::free(ptr);
  in_use_ -= bytes;
  --segments_;
}

}  // namespace tensord::cuda
