// The order of a chunked transfer through pinned staging buffers, free of CUDA so that it is
// tested on the host (tests/unit/cuda/staging_pipeline_test.cpp); cuda_transfers.cpp supplies
// the steps. With two or more staging buffers the host's memcpy of one chunk overlaps the DMA
// of another: an upload fills buffer i+1 while chunk i moves to the device; a download has
// the next chunks' DMAs queued while the host copies chunk i out. A buffer is refilled (upload)
// or its DMA target reused (download) only after `wait` says its last DMA is over.
#pragma once

#include <cstddef>
#include <functional>

namespace tensord::cuda {

struct StagingSteps {
  // The host waits until the last DMA queued for staging buffer `slot` is over (at once when
  // none was queued).
  std::function<void(size_t slot)> wait;
  // Upload: host bytes [offset, offset + len) into staging buffer `slot`. Download: the same
  // range out of it.
  std::function<void(size_t slot, size_t offset, size_t len)> host_copy;
  // Queues the DMA of [offset, offset + len) between staging buffer `slot` and the device, and
  // marks the slot busy until it is over.
  std::function<void(size_t slot, size_t offset, size_t len)> dma;
};

// Both throw Error(Internal) for chunk == 0 or fewer than 2 slots. When they return, every
// DMA they queued is over (a download's bytes are in place, an upload's staging is free).
void staged_upload(size_t n, size_t chunk, size_t slots, const StagingSteps& steps);
void staged_download(size_t n, size_t chunk, size_t slots, const StagingSteps& steps);

}  // namespace tensord::cuda
