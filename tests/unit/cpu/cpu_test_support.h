// Helpers for the CPU backend's tests: tensors from vectors, strided views, nodes with their
// output types filled in by hand, and one-node runs.
#pragma once

#include <cstring>
#include <vector>

#include "engine/backends/cpu/cpu_backend.h"
#include "engine/backends/cpu/dispatch.h"
#include "engine/exec/tensor_value.h"
#include "engine/ir/graph.h"

namespace tensord::cpu::test {

using engine::TensorValue;
using ir::Attr;
using ir::DType;
using ir::Op;
using ir::Shape;

template <typename T>
TensorValue tensor(engine::Backend& backend, Shape shape, const std::vector<T>& values,
                   DType dtype = dtype_of<T>()) {
  TensorValue v;
  v.type = ir::TensorType{dtype, shape};
  v.buffer = backend.allocate(v.nbytes());
  REQUIRE(values.size() * sizeof(T) == v.nbytes());
  if constexpr (std::is_same_v<T, bool>) {  // vector<bool> packs bits
    std::vector<uint8_t> bytes(values.begin(), values.end());
    if (!bytes.empty()) backend.write(*v.buffer, 0, bytes.data(), v.nbytes());
  } else {
    if (!values.empty()) backend.write(*v.buffer, 0, values.data(), v.nbytes());
  }
  v.strides = ir::contiguous_strides(shape);
  return v;
}

// An arbitrary view of `base`'s buffer.
inline TensorValue view(const TensorValue& base, Shape shape, std::vector<int64_t> strides,
                        int64_t offset) {
  TensorValue v = base;
  v.type.shape = std::move(shape);
  v.strides = std::move(strides);
  v.offset = offset;
  return v;
}

inline TensorValue empty(engine::Backend& backend, const ir::TensorType& type) {
  TensorValue v;
  v.type = type;
  v.buffer = backend.allocate(type.nbytes());
  v.strides = ir::contiguous_strides(type.shape);
  return v;
}

inline ir::Node node(Op op, ir::TensorType out, ir::Attrs attrs = {}) {
  ir::Node n;
  n.op = op;
  n.attrs = std::move(attrs);
  n.outputs = {std::move(out)};
  return n;
}

inline TensorValue run(engine::Backend& backend, const ir::Node& n,
                       std::vector<TensorValue> inputs) {
  TensorValue out = empty(backend, n.outputs[0]);
  backend.run(n, inputs, std::span<const TensorValue>(&out, 1));
  return out;
}

template <typename T>
std::vector<T> values(const TensorValue& v) {
  REQUIRE(ir::itemsize(v.type.dtype) == sizeof(T));
  const T* p = static_cast<const T*>(v.raw());
  return std::vector<T>(p, p + v.type.numel());
}

}  // namespace tensord::cpu::test
