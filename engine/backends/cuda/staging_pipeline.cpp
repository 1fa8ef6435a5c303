#include "engine/backends/cuda/staging_pipeline.h"

#include <algorithm>
#include <string>

#include "engine/ir/error.h"

namespace tensord::cuda {
namespace {

void check_shape(size_t chunk, size_t slots) {
  if (chunk == 0 || slots < 2) {
    throw Error(ErrorCode::Internal,
                "staged transfer: needs a chunk size > 0 and 2 or more "
                "staging buffers (got chunk " +
                    std::to_string(chunk) + ", " + std::to_string(slots) + " buffers)");
  }
}

size_t chunks_of(size_t n, size_t chunk) {
  return n / chunk + (n % chunk != 0 ? 1 : 0);
}

}  // namespace

void staged_upload(size_t n, size_t chunk, size_t slots, const StagingSteps& steps) {
  check_shape(chunk, slots);
  const size_t chunks = chunks_of(n, chunk);
  for (size_t i = 0; i < chunks; ++i) {
    const size_t slot = i % slots, offset = i * chunk, len = std::min(chunk, n - offset);
    steps.wait(slot);  // its DMA of chunk i - slots has left the buffer
    steps.host_copy(slot, offset, len);
    steps.dma(slot, offset, len);
  }
  // Synchronous, as before: the bytes are on the device when the caller goes on.
  for (size_t slot = 0; slot < std::min(slots, chunks); ++slot) steps.wait(slot);
}

void staged_download(size_t n, size_t chunk, size_t slots, const StagingSteps& steps) {
  check_shape(chunk, slots);
  const size_t chunks = chunks_of(n, chunk);
  auto queue = [&](size_t i) {
    const size_t offset = i * chunk;
    steps.dma(i % slots, offset, std::min(chunk, n - offset));
  };
  for (size_t i = 0; i < std::min(slots, chunks); ++i) queue(i);
  for (size_t i = 0; i < chunks; ++i) {
    const size_t slot = i % slots, offset = i * chunk;
    steps.wait(slot);
    steps.host_copy(slot, offset, std::min(chunk, n - offset));
    if (i + slots < chunks) queue(i + slots);  // the slot is free again: its next chunk
  }
}

}  // namespace tensord::cuda
