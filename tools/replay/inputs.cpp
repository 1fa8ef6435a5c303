#include "tools/replay/inputs.h"

#include <cstring>
#include <random>

#include "engine/ir/half.h"

namespace tensord::replay {
namespace {

template <typename T>
void put(std::vector<std::byte>& out, size_t k, T v) {
  std::memcpy(out.data() + k * sizeof(T), &v, sizeof(T));
}

}  // namespace

std::vector<std::byte> input_bytes(const ir::TensorType& type, size_t index) {
  const auto n = static_cast<size_t>(type.numel());
  std::vector<std::byte> out(n * ir::itemsize(type.dtype));
  std::mt19937_64 rng(0x7e4507d + index);
  std::uniform_real_distribution<double> real(-2, 2);
  std::uniform_int_distribution<int> small(-8, 8);
  for (size_t k = 0; k < n; ++k) {
    switch (type.dtype) {
      case ir::DType::Bool:
        put<uint8_t>(out, k, static_cast<uint8_t>(k % 2));
        break;
      case ir::DType::Int8:
        put<int8_t>(out, k, static_cast<int8_t>(small(rng)));
        break;
      case ir::DType::UInt8:
        put<uint8_t>(out, k, static_cast<uint8_t>(small(rng) + 8));
        break;
      case ir::DType::Int16:
        put<int16_t>(out, k, static_cast<int16_t>(small(rng)));
        break;
      case ir::DType::Int32:
        put<int32_t>(out, k, small(rng));
        break;
      case ir::DType::Int64:
        put<int64_t>(out, k, small(rng));
        break;
      case ir::DType::Float16:
        put<uint16_t>(out, k, ir::Float16(static_cast<float>(real(rng))).bits);
        break;
      case ir::DType::BFloat16:
        put<uint16_t>(out, k, ir::BFloat16(static_cast<float>(real(rng))).bits);
        break;
      case ir::DType::Float32:
        put<float>(out, k, static_cast<float>(real(rng)));
        break;
      case ir::DType::Float64:
        put<double>(out, k, real(rng));
        break;
      case ir::DType::Complex64:  // issue 4: (real, imaginary) pairs
        put<float>(out, 2 * k, static_cast<float>(real(rng)));
        put<float>(out, 2 * k + 1, static_cast<float>(real(rng)));
        break;
      case ir::DType::Complex128:
        put<double>(out, 2 * k, real(rng));
        put<double>(out, 2 * k + 1, real(rng));
        break;
    }
  }
  return out;
}

std::vector<std::byte> input_bytes(const engine::Reproducer& r, size_t index) {
  if (index < r.values.size() && r.values[index]) return *r.values[index];
  return input_bytes(r.inputs.at(index), index);
}

}  // namespace tensord::replay
