// The allocator tests' segment source on a GPU: cudaMalloc on device 0, refusing past a budget
// so that the out-of-memory paths are the same as on the host.
#include "engine/backends/cuda/cuda_resources.h"
#include "tests/unit/cuda/allocator_fixture.h"

namespace tensord::cuda::test {
namespace {

class BudgetedCudaSource final : public SegmentSource {
 public:
  explicit BudgetedCudaSource(size_t capacity) : inner_(0, "test"), capacity_(capacity) {}
  void* allocate(size_t bytes) override {
    if (bytes > capacity_ - in_use_) return nullptr;
    void* p = inner_.allocate(bytes);
    if (p != nullptr) in_use_ += bytes;
    return p;
  }
  void release(void* ptr, size_t bytes) override {
    inner_.release(ptr, bytes);
    in_use_ -= bytes;
  }
  size_t free_bytes() override { return capacity_ - in_use_; }
  size_t total_bytes() override { return capacity_; }
  std::string describe() override { return inner_.describe(); }

 private:
  CudaSegmentSource inner_;
  size_t capacity_;
  size_t in_use_ = 0;
};

}  // namespace

std::unique_ptr<SegmentSource> make_segment_source(size_t capacity) {
  return std::make_unique<BudgetedCudaSource>(capacity);
}

}  // namespace tensord::cuda::test
