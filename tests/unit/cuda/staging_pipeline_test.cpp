// The order of chunked transfers through staging buffers (staging_pipeline.h) against a fake
// device whose DMAs happen only when the host waits for them: a staging buffer touched while
// its DMA is pending, or a chunk copied before its DMA, corrupts the bytes or fails a check.
// Also checks the overlap the pipeline exists for: the host copies one chunk while another's
// DMA is queued.
#include <catch2/catch.hpp>

#include <cstdint>
#include <optional>
#include <vector>

#include "engine/backends/cuda/staging_pipeline.h"
#include "engine/ir/error.h"

namespace tensord::cuda::test {
namespace {

struct FakeDevice {
  enum class Dir { Up, Down };
  struct Pending {
    Dir dir;
    size_t offset, len;
  };

  FakeDevice(size_t n, size_t chunk, size_t slots)
      : device(n, 0xEE), staging(slots, std::vector<uint8_t>(chunk, 0xCC)), busy(slots) {}

  // `host` is the source of an upload or the destination of a download.
  StagingSteps steps(Dir dir, std::vector<uint8_t>& host) {
    StagingSteps s;
    s.wait = [this](size_t slot) {
      if (!busy[slot]) return;
      const Pending p = *busy[slot];
      for (size_t i = 0; i < p.len; ++i) {
        if (p.dir == Dir::Up) {
          device[p.offset + i] = staging[slot][i];
        } else {
          staging[slot][i] = device[p.offset + i];
        }
      }
      busy[slot].reset();
    };
    s.host_copy = [this, dir, &host](size_t slot, size_t offset, size_t len) {
      REQUIRE_FALSE(busy[slot]);  // never touch a staging buffer with a DMA pending
      for (size_t i = 0; i < len; ++i) {
        if (dir == Dir::Up) {
          staging[slot][i] = host[offset + i];
        } else {
          host[offset + i] = staging[slot][i];
        }
      }
      ++host_copies;
      size_t in_flight = 0;
      for (const auto& b : busy) in_flight += b ? 1 : 0;
      copies_while_dma_queued += in_flight > 0 ? 1 : 0;
    };
    s.dma = [this, dir](size_t slot, size_t offset, size_t len) {
      REQUIRE_FALSE(busy[slot]);
      busy[slot] = Pending{dir, offset, len};
      ++dmas;
    };
    return s;
  }

  bool idle() const {
    for (const auto& b : busy) {
      if (b) return false;
    }
    return true;
  }

  std::vector<uint8_t> device;
  std::vector<std::vector<uint8_t>> staging;
  std::vector<std::optional<Pending>> busy;
  size_t host_copies = 0, dmas = 0, copies_while_dma_queued = 0;
};

std::vector<uint8_t> pattern(size_t n, unsigned seed) {
  std::vector<uint8_t> v(n);
  uint32_t x = seed * 2654435761u + 1;
  for (auto& b : v) {
    x = x * 1664525u + 1013904223u;
    b = static_cast<uint8_t>(x >> 24);
  }
  return v;
}

}  // namespace

TEST_CASE("staged uploads and downloads move every byte, in any chunking") {
  const size_t chunk = 16;
  for (size_t slots : {size_t{2}, size_t{3}}) {
    for (size_t n : {size_t{0}, size_t{1}, chunk - 1, chunk, chunk + 1, 2 * chunk, 7 * chunk + 5}) {
      INFO("n = " << n << ", slots = " << slots);
      FakeDevice fake(n, chunk, slots);
      std::vector<uint8_t> in = pattern(n, static_cast<unsigned>(n + slots));
      staged_upload(n, chunk, slots, fake.steps(FakeDevice::Dir::Up, in));
      CHECK(fake.idle());  // returns with every DMA over
      CHECK(fake.device == in);
      std::vector<uint8_t> out(n, 0);
      staged_download(n, chunk, slots, fake.steps(FakeDevice::Dir::Down, out));
      CHECK(fake.idle());
      CHECK(out == in);
      const size_t chunks = (n + chunk - 1) / chunk;
      CHECK(fake.dmas == 2 * chunks);
      CHECK(fake.host_copies == 2 * chunks);
    }
  }
}

TEST_CASE("staged transfers copy on the host while another chunk's DMA is queued") {
  const size_t chunk = 16, chunks = 6, n = chunk * chunks;
  FakeDevice up(n, chunk, 2);
  std::vector<uint8_t> in = pattern(n, 3);
  staged_upload(n, chunk, 2, up.steps(FakeDevice::Dir::Up, in));
  // Every chunk but the first is staged while the one before it is still queued.
  CHECK(up.copies_while_dma_queued == chunks - 1);
  FakeDevice down(n, chunk, 2);
  down.device = in;
  std::vector<uint8_t> out(n, 0);
  staged_download(n, chunk, 2, down.steps(FakeDevice::Dir::Down, out));
  // Every chunk but the last is copied out while the next one's DMA is queued.
  CHECK(down.copies_while_dma_queued == chunks - 1);
  CHECK(out == in);
}

TEST_CASE("staged transfers refuse a zero chunk and fewer than two staging buffers") {
  StagingSteps none;
  CHECK_THROWS_AS(staged_upload(10, 0, 2, none), Error);
  CHECK_THROWS_WITH(staged_download(10, 4, 1, none), Catch::Contains("2 or more"));
}

}  // namespace tensord::cuda::test
