// The C++ client's memory_stats and set_float32_matmul_precision against the CPU daemon, and
// the PyTorch key names of the allocator figures.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <string>

#include "tests/integration/client/client_fixture.h"

using tensord::test::ClientFixture;

TEST_CASE("memory_stats: one entry, the CPU, with its host cache and no allocator", "[device]") {
  ClientFixture f;
  auto big = f.session.full({512, 1024}, 1.0f) * 2.0f;  // 2 MiB: through the host block cache
  f.session.sync({big});
  std::vector<tensord::DeviceMemoryStats> devices = f.session.memory_stats();
  REQUIRE(devices.size() == f.session.info().devices.size());
  REQUIRE(devices.size() == 1);
  const tensord::DeviceMemoryStats& cpu = devices[0];
  CHECK(cpu.device.kind == "cpu");
  CHECK(cpu.device.name == f.session.info().devices[0].name);
  CHECK(cpu.session_device);
  CHECK_FALSE(cpu.allocator.has_value());
  REQUIRE(cpu.host_cache.has_value());
  CHECK(cpu.host_cache->hits + cpu.host_cache->misses >= 1);
  CHECK(tensord::torch_memory_stats(cpu).empty());  // no made-up allocator figures
}

TEST_CASE("torch_memory_stats uses PyTorch's key names, sorted", "[device]") {
  tensord::DeviceMemoryStats s;
  s.device.kind = "cuda";
  tensord::AllocatorMemoryStats a;
  a.allocated_bytes = {10, 20, 30, 40};
  a.reserved_bytes = {50, 60, 70, 80};
  a.active_bytes = {1, 2, 3, 4};
  a.inactive_split_bytes = {5, 6, 7, 8};
  a.requested_bytes = {9, 11, 12, 13};
  a.allocation = {14, 15, 16, 17};
  a.segment = {18, 19, 21, 22};
  a.active = {23, 24, 25, 26};
  a.inactive_split = {27, 28, 29, 31};
  a.num_alloc_retries = 3;
  a.num_ooms = 2;
  a.num_device_alloc = 7;
  a.num_device_free = 5;
  s.allocator = a;
  auto pairs = tensord::torch_memory_stats(s);
  CHECK(std::is_sorted(pairs.begin(), pairs.end()));
  std::map<std::string, int64_t> m(pairs.begin(), pairs.end());
  CHECK(m.size() == 9 * 4 + 4);
  CHECK(m.at("allocated_bytes.all.current") == 10);
  CHECK(m.at("allocated_bytes.all.peak") == 20);
  CHECK(m.at("allocated_bytes.all.allocated") == 30);
  CHECK(m.at("allocated_bytes.all.freed") == 40);
  CHECK(m.at("reserved_bytes.all.current") == 50);
  CHECK(m.at("reserved_bytes.all.peak") == 60);
  CHECK(m.at("active_bytes.all.current") == 1);
  CHECK(m.at("inactive_split_bytes.all.peak") == 6);
  CHECK(m.at("requested_bytes.all.current") == 9);
  CHECK(m.at("allocation.all.freed") == 17);
  CHECK(m.at("segment.all.current") == 18);
  CHECK(m.at("active.all.peak") == 24);
  CHECK(m.at("inactive_split.all.freed") == 31);
  CHECK(m.at("num_alloc_retries") == 3);
  CHECK(m.at("num_ooms") == 2);
  CHECK(m.at("num_device_alloc") == 7);
  CHECK(m.at("num_device_free") == 5);
}

TEST_CASE("set_float32_matmul_precision round-trips; bad values are refused", "[device]") {
  ClientFixture f;
  CHECK(f.session.float32_matmul_precision() == "highest");
  for (const char* p : {"high", "medium", "highest", "medium"}) {
    f.session.set_float32_matmul_precision(p);
    CHECK(f.session.float32_matmul_precision() == p);
    CHECK(f.session.stats().float32_matmul_precision == p);
  }
  try {
    f.session.set_float32_matmul_precision("HIGH");
    FAIL("no error");
  } catch (const tensord::Error& e) {
    CHECK(e.code() == tensord::ErrorCode::InvalidGraph);
    CHECK(std::string(e.what()).find("'HIGH'") != std::string::npos);
    CHECK(std::string(e.what()).find("highest, high or medium") != std::string::npos);
  }
  CHECK(f.session.float32_matmul_precision() == "medium");
  // Runs go on, in float32 on the CPU whatever the setting.
  auto a = f.session.from_vector<float>({1, 2, 3, 4}, {2, 2});
  CHECK(tensord::matmul(a, a).to_vector<float>() == std::vector<float>{7, 10, 15, 22});
}
