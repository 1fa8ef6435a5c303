// Sessions' streams on a device (cuda_backend.h, session_streams.h) and the staged transfers
// (cuda_transfers.cpp): two sessions' work overlaps in time (events on their two streams), a
// tensor one session made is read correctly by another without a host sync, and 256 MiB go up
// and down byte for byte.
#include <catch2/catch.hpp>

#include <sys/mman.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include <cuda_runtime_api.h>

#include "engine/backends/cuda/cuda_backend.h"
#include "engine/backends/cuda/device_discovery.h"

namespace tensord::cuda::test {
namespace {

ir::Node op_node(ir::Op op) {
  ir::Node n;
  n.op = op;
  return n;
}

engine::TensorValue filled(CudaBackend& cuda, float value, std::vector<int64_t> shape) {
  ir::TensorType type{ir::DType::Float32, ir::Shape(shape)};
  std::vector<float> host(static_cast<size_t>(type.numel()), value);
  auto buffer = cuda.allocate(host.size() * sizeof(float));
  cuda.write(*buffer, 0, host.data(), host.size() * sizeof(float));
  return engine::TensorValue::contiguous(buffer, type);
}

engine::TensorValue empty_like(CudaBackend& cuda, const ir::TensorType& type) {
  return engine::TensorValue::contiguous(cuda.allocate(type.nbytes()), type);
}

engine::TensorValue matmul(CudaBackend& cuda, const engine::TensorValue& a,
                           const engine::TensorValue& b) {
  engine::TensorValue out =
      empty_like(cuda, {ir::DType::Float32, ir::Shape{a.type.shape[0], b.type.shape[1]}});
  std::vector<engine::TensorValue> in{a, b};
  cuda.run(op_node(ir::Op::matmul), in, {&out, 1});
  return out;
}

engine::TensorValue add(CudaBackend& cuda, const engine::TensorValue& a,
                        const engine::TensorValue& b) {
  engine::TensorValue out = empty_like(cuda, a.type);
  std::vector<engine::TensorValue> in{a, b};
  cuda.run(op_node(ir::Op::add), in, {&out, 1});
  return out;
}

// Every element of a float32 tensor (read through the backend, i.e. a staged download).
std::vector<float> download(CudaBackend& cuda, const engine::TensorValue& v) {
  std::vector<float> host(static_cast<size_t>(v.type.numel()));
  cuda.read(*v.buffer, 0, host.data(), host.size() * sizeof(float));
  return host;
}

size_t count_not(const std::vector<float>& values, float want) {
  size_t n = 0;
  for (float v : values) n += v == want ? 0 : 1;
  return n;
}

struct TimingEvent {
  TimingEvent() { REQUIRE(cudaEventCreate(&e) == cudaSuccess); }
  ~TimingEvent() { cudaEventDestroy(e); }
  void record(cudaStream_t s) { REQUIRE(cudaEventRecord(e, s) == cudaSuccess); }
  cudaEvent_t e = nullptr;
};

float ms_between(const TimingEvent& a, const TimingEvent& b) {
  float ms = 0;
  REQUIRE(cudaEventElapsedTime(&ms, a.e, b.e) == cudaSuccess);
  return ms;
}

}  // namespace

TEST_CASE("two sessions get two streams, and the second's work starts while the first's runs") {
  CudaBackend cuda(discover_cuda_devices().devices.at(0));
  const int64_t n = 4096;  // ones @ ones: every element is exactly n
  cuda.set_session(1);
  cudaStream_t a_stream = cuda.current_stream();
  auto a = filled(cuda, 1, {n, n});
  {
    // Warm: cuBLASLt's heuristics, the workspace, and six cached output blocks, so that the
    // timed part calls no cudaMalloc (which may wait for the device).
    std::vector<engine::TensorValue> warm;
    for (int i = 0; i < 6; ++i) warm.push_back(matmul(cuda, a, a));
  }
  cuda.set_session(2);
  cudaStream_t b_stream = cuda.current_stream();
  CHECK(a_stream != b_stream);
  CHECK(cuda.session_streams_created() == 2);
  auto x = filled(cuda, 2, {1 << 20});
  (void)add(cuda, x, x);  // warm: the NVRTC kernel
  cuda.synchronize();

  TimingEvent a_start, a_end, b_start, b_end;
  cuda.set_session(1);
  a_start.record(cuda.current_stream());
  std::vector<engine::TensorValue> a_out;
  for (int i = 0; i < 6; ++i) a_out.push_back(matmul(cuda, a, a));  // ~15 ms on an H100
  a_end.record(cuda.current_stream());
  cuda.set_session(2);
  b_start.record(cuda.current_stream());
  auto y = add(cuda, x, x);
  b_end.record(cuda.current_stream());
  cuda.synchronize();

  const float a_ms = ms_between(a_start, a_end);
  const float b_starts_at = ms_between(a_start, b_start);
  const float b_ends_at = ms_between(a_start, b_end);
  std::printf("session A: 0 to %.3f ms; session B: %.3f to %.3f ms (after A's start)\n", a_ms,
              b_starts_at, b_ends_at);
  // On one shared stream B's start would come after A's end.
  CHECK(b_starts_at < a_ms);
  for (const auto& out : a_out) CHECK(count_not(download(cuda, out), float(n)) == 0);
  CHECK(count_not(download(cuda, y), 4.0f) == 0);
}

TEST_CASE("a tensor made by one session is read correctly by another without a host sync") {
  CudaBackend cuda(discover_cuda_devices().devices.at(0));
  // n * n + 2 must be a float32: 2^22 + 2 is, 2^24 + 2 is not (an H200 gave 2^24 + 1 + 1 = 2^24).
  const int64_t n = 2048;
  cuda.set_session(1);
  auto ones = filled(cuda, 1, {n, n});
  (void)matmul(cuda, ones, ones);
  cuda.synchronize();
  for (int round = 0; round < 3; ++round) {
    cuda.set_session(1);
    engine::TensorValue made = matmul(cuda, ones, ones);  // still running when B reads it
    made = matmul(cuda, made, ones);                      // n * n
    cuda.set_session(2);
    auto one = filled(cuda, 1, {n, n});
    auto sum = add(cuda, made, one);  // waits for session 1's stream (an event)
    cuda.end_session(1);              // A goes; its tensor lives on in B's hands
    made = {};
    auto again = add(cuda, sum, one);  // B's stream only
    INFO("round " << round);
    CHECK(count_not(download(cuda, again), float(n) * float(n) + 2) == 0);
  }
}

TEST_CASE("256 MiB go up and down through the staging buffers byte for byte") {
  CudaBackend cuda(discover_cuda_devices().devices.at(0));
  cuda.set_session(1);
  const size_t bytes = size_t{256} << 20;
  std::vector<uint8_t> in(bytes), out(bytes, 0);
  uint64_t x = 0x9E3779B97F4A7C15ull;
  for (size_t i = 0; i < bytes; i += 8) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    std::memcpy(in.data() + i, &x, 8);
  }
  auto buffer = cuda.allocate(bytes);
  cuda.write(*buffer, 0, in.data(), bytes);
  cuda.read(*buffer, 0, out.data(), bytes);
  CHECK(std::memcmp(in.data(), out.data(), bytes) == 0);

  // Ranges that start and end inside chunks, and a device-to-device copy in between.
  const size_t offset = (size_t{8} << 20) + 12345, length = (size_t{40} << 20) + 77;
  std::vector<uint8_t> part(length, 0xAB), back(length, 0);
  cuda.write(*buffer, offset, part.data(), length);
  auto other = cuda.allocate(bytes);
  cuda.copy(*other, 0, *buffer, 0, bytes);
  cuda.read(*other, offset - 5, back.data(), length);
  CHECK(std::memcmp(back.data(), in.data() + offset - 5, 5) == 0);
  CHECK(std::memcmp(back.data() + 5, part.data(), length - 5) == 0);
}

TEST_CASE("registered host memory moves without staging, byte for byte, at DMA speed") {
  CudaBackend cuda(discover_cuda_devices().devices.at(0));
  cuda.set_session(1);
  const size_t bytes = size_t{256} << 20;
  // A shared mapping, as the daemon has of a client's transfer buffer (server/shared_mapping.h).
  auto map = [&] {
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    REQUIRE(p != MAP_FAILED);
    return static_cast<uint8_t*>(p);
  };
  uint8_t* in = map();
  uint8_t* out = map();
  for (size_t i = 0; i < bytes; ++i) in[i] = static_cast<uint8_t>(i * 2654435761u >> 13);
  auto buffer = cuda.allocate(bytes);
  auto seconds = [](auto f) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  const double staged = seconds([&] { cuda.write(*buffer, 0, in, bytes); });
  {
    std::shared_ptr<void> pin_in = cuda.pin_host_memory(in, bytes, /*read_only=*/true);
    std::shared_ptr<void> pin_out = cuda.pin_host_memory(out, bytes, false);
    REQUIRE(pin_out != nullptr);
    if (pin_in == nullptr) WARN("read-only registration refused: the upload stages");
    std::memset(out, 0, bytes);
    const double up = seconds([&] { cuda.write(*buffer, 0, in, bytes); });
    const double down = seconds([&] { cuda.read(*buffer, 0, out, bytes); });
    CHECK(std::memcmp(in, out, bytes) == 0);
    std::printf("256 MiB: staged up %.2f GB/s; registered up %.2f GB/s, down %.2f GB/s\n",
                bytes / staged / 1e9, bytes / up / 1e9, bytes / down / 1e9);
    // A DMA from page-locked memory runs at tens of GB/s; the staging copy at a few.
    CHECK(bytes / down / 1e9 > 15);
    if (pin_in != nullptr) CHECK(up < staged);
  }
  // Unregistered again: staged, still byte for byte.
  std::memset(out, 0, bytes);
  cuda.read(*buffer, 0, out, bytes);
  CHECK(std::memcmp(in, out, bytes) == 0);
  munmap(in, bytes);
  munmap(out, bytes);
}

}  // namespace tensord::cuda::test
