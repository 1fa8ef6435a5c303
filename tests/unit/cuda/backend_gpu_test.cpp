// The CUDA backend on a device: transfers through pinned staging, the caching allocator behind
// allocate(), cuBLASLt matmul against a host reference, the precision setting, integer matmul
// (the tiled kernel) against a wrapping host loop, and the Unsupported error of ops without
// kernels.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "engine/backends/cuda/caching_allocator.h"
#include "engine/backends/cuda/cuda_backend.h"
#include "engine/backends/cuda/cuda_resources.h"
#include "engine/ir/error.h"

namespace tensord::cuda::test {
namespace {

CudaBackend open_first() {
  return CudaBackend(discover_cuda_devices().devices.at(0));
}

engine::TensorValue upload(CudaBackend& cuda, const std::vector<float>& host,
                           std::vector<int64_t> shape) {
  auto buffer = cuda.allocate(host.size() * sizeof(float));
  cuda.write(*buffer, 0, host.data(), host.size() * sizeof(float));
  return engine::TensorValue::contiguous(buffer, {ir::DType::Float32, ir::Shape(shape)});
}

ir::Node node_of(ir::Op op) {
  ir::Node n;
  n.op = op;
  return n;
}

TEST_CASE("bytes round-trip through pinned staging, across chunk boundaries") {
  CudaBackendOptions options;
  options.staging_bytes = 4096;
  CudaBackend cuda(discover_cuda_devices().devices.at(0), options);
  CHECK(cuda.info().kind == "cuda");
  std::vector<unsigned char> in(10000), out(10000);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<unsigned char>(i * 7);
  auto buffer = cuda.allocate(in.size());
  cuda.write(*buffer, 0, in.data(), in.size());
  cuda.read(*buffer, 0, out.data(), out.size());
  CHECK(in == out);
  CHECK(cuda.allocator_stats().allocated_bytes.current >= int64_t(10240));
}

TEST_CASE("float32 matmul through cuBLASLt agrees with a host loop at every precision") {
  CudaBackend cuda = open_first();
  const int64_t M = 33, K = 70, N = 17;
  std::vector<float> a(M * K), b(K * N), want(M * N, 0), got(M * N);
  for (size_t i = 0; i < a.size(); ++i) a[i] = std::sin(float(i));
  for (size_t i = 0; i < b.size(); ++i) b[i] = std::cos(float(i));
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n)
      for (int64_t k = 0; k < K; ++k) want[m * N + n] += a[m * K + k] * b[k * N + n];
  auto ta = upload(cuda, a, {M, K}), tb = upload(cuda, b, {K, N});
  for (auto [precision, tolerance] : {std::pair{engine::Float32MatmulPrecision::Highest, 1e-4},
                                      std::pair{engine::Float32MatmulPrecision::High, 5e-2},
                                      std::pair{engine::Float32MatmulPrecision::Medium, 2e-1}}) {
    cuda.set_float32_matmul_precision(precision);
    auto out = upload(cuda, std::vector<float>(M * N, -1), {M, N});
    std::vector<engine::TensorValue> in{ta, tb};
    cuda.run(node_of(ir::Op::matmul), in, {&out, 1});
    cuda.read(*out.buffer, 0, got.data(), got.size() * sizeof(float));
    for (size_t i = 0; i < got.size(); ++i) {
      INFO(engine::name(precision) << " element " << i);
      CHECK(std::abs(got[i] - want[i]) <= tolerance * (1 + std::abs(want[i])));
    }
  }
}

// Integer matmul (int_matmul.h: a tiled NVRTC kernel, not cuBLASLt) against a host loop that
// wraps as the output type: full-range values, shapes across the 64 x 64 tiles, a transposed
// operand and a broadcast batch.
template <typename T>
void integer_matmul_agrees(CudaBackend& cuda, ir::DType dtype) {
  const int64_t B = 3, M = 70, K = 37, N = 130;
  std::vector<T> a(M * K), b(B * K * N), got(B * M * N), want(B * M * N);
  uint64_t x = 12345;
  const auto next = [&x] {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<T>(x ^ (x >> 29));  // every bit: sums wrap in every type
  };
  for (T& v : a) v = next();  // stored (K, M): the operand is its transposed view
  for (T& v : b) v = next();
  using Acc = std::conditional_t<sizeof(T) == 8, uint64_t, uint32_t>;
  for (int64_t i = 0; i < B; ++i)
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n) {
        Acc acc = 0;
        for (int64_t k = 0; k < K; ++k) {
          acc += static_cast<Acc>(a[k * M + m]) * static_cast<Acc>(b[(i * K + k) * N + n]);
        }
        want[(i * M + m) * N + n] = static_cast<T>(acc);
      }
  auto buffer_a = cuda.allocate(a.size() * sizeof(T)),
       buffer_b = cuda.allocate(b.size() * sizeof(T));
  cuda.write(*buffer_a, 0, a.data(), a.size() * sizeof(T));
  cuda.write(*buffer_b, 0, b.data(), b.size() * sizeof(T));
  engine::TensorValue ta = engine::TensorValue::contiguous(buffer_a, {dtype, ir::Shape{M, K}});
  ta.strides = {1, M};
  const engine::TensorValue tb =
      engine::TensorValue::contiguous(buffer_b, {dtype, ir::Shape{B, K, N}});
  engine::TensorValue out = engine::TensorValue::contiguous(cuda.allocate(got.size() * sizeof(T)),
                                                            {dtype, ir::Shape{B, M, N}});
  std::vector<engine::TensorValue> in{ta, tb};
  cuda.run(node_of(ir::Op::matmul), in, {&out, 1});
  cuda.read(*out.buffer, 0, got.data(), got.size() * sizeof(T));
  CHECK(got == want);
}

TEST_CASE("integer matmul runs on the device and wraps as the CPU does") {
  CudaBackend cuda = open_first();
  integer_matmul_agrees<int8_t>(cuda, ir::DType::Int8);
  integer_matmul_agrees<uint8_t>(cuda, ir::DType::UInt8);
  integer_matmul_agrees<int16_t>(cuda, ir::DType::Int16);
  integer_matmul_agrees<int32_t>(cuda, ir::DType::Int32);
  integer_matmul_agrees<int64_t>(cuda, ir::DType::Int64);
}

TEST_CASE("a block used by a second stream is reused only after that stream's work") {
  CudaSegmentSource source(0, "test");
  CudaStreamEvents events(0);
  CachingAllocator alloc(source, &events);
  Stream first(0), second(0);
  void* a = alloc.allocate(size_t{64} << 20, first.id());
  REQUIRE(cudaMemsetAsync(a, 1, size_t{64} << 20, second.get()) == cudaSuccess);
  alloc.record_stream(a, second.id());
  alloc.free(a);
  // (Whether it is still pending here depends on how fast the memset runs: not checked.)
  second.synchronize();
  void* b = alloc.allocate(size_t{64} << 20, first.id());
  CHECK(b == a);  // the event completed: back in the pool, reused
  alloc.free(b);
}

TEST_CASE("an elementwise node runs through a kernel generated by NVRTC") {
  CudaBackend cuda = open_first();
  auto a = upload(cuda, {1, 2, 3}, {3});
  auto b = upload(cuda, {10, 20, 30}, {3});
  auto out = upload(cuda, {-1, -1, -1}, {3});
  std::vector<engine::TensorValue> in{a, b};
  cuda.run(node_of(ir::Op::add), in, {&out, 1});
  std::vector<float> got(3);
  cuda.read(*out.buffer, 0, got.data(), sizeof(float) * 3);
  CHECK(got == std::vector<float>{11, 22, 33});
}

TEST_CASE("ops without CUDA kernels throw Unsupported naming the op") {
  CudaBackend cuda = open_first();
  auto buffer = cuda.allocate(16);
  const engine::TensorValue c =
      engine::TensorValue::contiguous(buffer, {ir::DType::Complex64, ir::Shape{2}});
  engine::TensorValue out = engine::TensorValue::contiguous(cuda.allocate(16), c.type);
  std::vector<engine::TensorValue> in{c, c};
  try {
    cuda.run(node_of(ir::Op::atan2), in, {&out, 1});
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::Unsupported);
    CHECK(e.message().find("atan2") != std::string::npos);
  }
}

}  // namespace
}  // namespace tensord::cuda::test
