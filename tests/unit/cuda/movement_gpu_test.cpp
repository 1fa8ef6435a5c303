// The creation, movement and index families on a device, for what the conformance table does not
// pin down: rand/randn against engine/ir/philox.h computed on the host (the CPU backend's
// numbers), conj copies, the index error read back from the device, and the strided copy's speed
// on a transpose (printed).
#include <catch2/catch.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include "engine/backends/cuda/cuda_backend.h"
#include "engine/ir/error.h"
#include "engine/ir/half.h"
#include "engine/ir/philox.h"

namespace tensord::cuda::test {
namespace {

using engine::TensorValue;
using ir::DType;

CudaBackend& backend() {
  static CudaBackend cuda(discover_cuda_devices().devices.at(0));
  return cuda;
}

TensorValue empty(DType t, ir::Shape shape) {
  ir::TensorType type{t, std::move(shape)};
  return TensorValue::contiguous(backend().allocate(std::max<size_t>(type.nbytes(), 1)), type);
}

template <typename T>
TensorValue upload(DType t, const std::vector<T>& host, ir::Shape shape) {
  TensorValue v = empty(t, std::move(shape));
  backend().write(*v.buffer, 0, host.data(), host.size() * sizeof(T));
  return v;
}

template <typename T>
std::vector<T> download(const TensorValue& v) {
  std::vector<T> out(v.nbytes() / sizeof(T));
  backend().read(*v.buffer, 0, out.data(), out.size() * sizeof(T));
  return out;
}

TensorValue random(ir::Op op, DType t, int64_t n, int64_t seed) {
  ir::Node node;
  node.op = op;
  node.attrs.set(ir::Attr::seed, static_cast<int64_t>(seed));
  TensorValue out = empty(t, {n});
  backend().run(node, {}, {&out, 1});
  return out;
}

float round_to_odd(double d) {
  float f = static_cast<float>(d);
  if (static_cast<double>(f) != d && !std::isnan(d)) {
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    if ((bits & 1u) == 0) f = std::nextafter(f, static_cast<float>(d > f ? INFINITY : -INFINITY));
  }
  return f;
}

constexpr int64_t kN = 1 << 20;
constexpr int64_t kSeed = int64_t{0x1234567890abcdef};

TEST_CASE("rand draws the CPU's numbers bit for bit in every float dtype") {
  auto f32 = download<float>(random(ir::Op::rand, DType::Float32, kN, kSeed));
  auto f64 = download<double>(random(ir::Op::rand, DType::Float64, kN, kSeed));
  auto f16 = download<uint16_t>(random(ir::Op::rand, DType::Float16, kN, kSeed));
  auto b16 = download<uint16_t>(random(ir::Op::rand, DType::BFloat16, kN, kSeed));
  int64_t bad = 0;
  for (int64_t i = 0; i < kN; ++i) {
    const ir::Philox4x32 w = ir::philox_element(kSeed, static_cast<uint64_t>(i));
    const float u = ir::philox_uniform24(w);
    uint16_t h = ir::Float16::from_float(u), b = ir::BFloat16::from_float(u);
    if (ir::Float16::to_float(h) >= 1.0f) h = 0x3BFF;
    if (ir::BFloat16::to_float(b) >= 1.0f) b = 0x3F7F;
    bad += f32[i] != u || f64[i] != ir::philox_uniform53(w) || f16[i] != h || b16[i] != b;
  }
  CHECK(bad == 0);
}

TEST_CASE("randn agrees with the CPU's Box-Muller to the last bits of float64") {
  auto f32 = download<float>(random(ir::Op::randn, DType::Float32, kN, kSeed));
  auto f64 = download<double>(random(ir::Op::randn, DType::Float64, kN, kSeed));
  auto f16 = download<uint16_t>(random(ir::Op::randn, DType::Float16, kN, kSeed));
  int64_t f64_diff = 0, f32_diff = 0, f16_diff = 0;
  double worst = 0;
  for (int64_t i = 0; i < kN; ++i) {
    const double z = ir::philox_normal(ir::philox_element(kSeed, static_cast<uint64_t>(i)));
    if (f64[i] != z) {
      ++f64_diff;
      worst = std::max(worst, std::abs(f64[i] - z) / std::max(1e-300, std::abs(z)));
    }
    f32_diff += f32[i] != static_cast<float>(z);
    f16_diff += f16[i] != ir::Float16::from_float(round_to_odd(z));
  }
  std::printf(
      "randn vs CPU over %lld: float64 %lld differ (worst relative %.3g), float32 %lld, "
      "float16 %lld\n",
      static_cast<long long>(kN), static_cast<long long>(f64_diff), worst,
      static_cast<long long>(f32_diff), static_cast<long long>(f16_diff));
  CHECK(worst < 1e-14);
  CHECK(f64_diff <= kN / 200);  // glibc misrounds log or cos in ~0.15% of draws
  CHECK(f32_diff <= kN / 100000);
  CHECK(f16_diff <= kN / 100000);
}

TEST_CASE("contiguous of a conj view negates imaginary parts, transposed or not") {
  const int64_t R = 40, C = 50;
  std::vector<float> host(2 * R * C);
  for (size_t i = 0; i < host.size(); ++i) host[i] = static_cast<float>(i) - 7.0f;
  TensorValue x = upload(DType::Complex64, host, {R, C});
  for (bool transpose : {false, true}) {
    TensorValue in = x;
    in.conj = true;
    if (transpose) {
      in.type.shape = {C, R};
      in.strides = {1, C};
    }
    TensorValue out = empty(DType::Complex64, in.type.shape);
    ir::Node node;
    node.op = ir::Op::contiguous;
    backend().run(node, {&in, 1}, {&out, 1});
    auto got = download<float>(out);
    int64_t bad = 0;
    for (int64_t i = 0; i < in.type.shape[0]; ++i) {
      for (int64_t j = 0; j < in.type.shape[1]; ++j) {
        const int64_t src = transpose ? j * C + i : i * C + j;
        const int64_t dst = i * in.type.shape[1] + j;
        bad += got[2 * dst] != host[2 * src] || got[2 * dst + 1] != -host[2 * src + 1];
      }
    }
    INFO("transpose " << transpose);
    CHECK(bad == 0);
  }
}

TEST_CASE("an index out of range raises the CPU's error from the device") {
  TensorValue x = upload(DType::Float32, std::vector<float>(5, 1.0f), {5});
  TensorValue index = upload(DType::Int64, std::vector<int64_t>{0, -5, 7, 2}, {4});
  TensorValue out = empty(DType::Float32, {4});
  ir::Node node;
  node.op = ir::Op::index_select;
  node.attrs.set(ir::Attr::axis, int64_t{0});
  TensorValue in[] = {x, index};
  try {
    backend().run(node, in, {&out, 1});
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::Shape);
    CHECK(e.message() == "index 7 is out of bounds for axis 0 with size 5");
  }
}

TEST_CASE("the strided copy of a transpose runs near the memory bandwidth") {
  for (DType t : {DType::Float32, DType::Float16, DType::Float64}) {
    const int64_t R = 8192, C = 8192;
    const size_t item = ir::itemsize(t);
    TensorValue x = empty(t, {R, C});
    TensorValue in = x;
    in.type.shape = {C, R};
    in.strides = {1, C};
    TensorValue out = empty(t, {C, R});
    ir::Node node;
    node.op = ir::Op::contiguous;
    backend().run(node, {&in, 1}, {&out, 1});  // compiles and warms up
    backend().synchronize();
    const int reps = 10;
    const auto t0 = std::chrono::steady_clock::now();
    for (int r = 0; r < reps; ++r) backend().run(node, {&in, 1}, {&out, 1});
    backend().synchronize();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double gbps = 2.0 * R * C * item * reps / s / 1e9;
    std::printf("transpose %s %lldx%lld: %.1f GB/s\n", std::string(ir::name(t)).c_str(),
                static_cast<long long>(R), static_cast<long long>(C), gbps);
    CHECK(gbps > 100);
  }
}

}  // namespace
}  // namespace tensord::cuda::test
