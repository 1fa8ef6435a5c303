#include "engine/exec/tensor_value.h"

#include <utility>

#include "engine/plan/layout.h"

namespace tensord::engine {

bool TensorValue::is_contiguous() const {
  return engine::is_contiguous(type.shape, strides);
}

TensorValue TensorValue::contiguous(std::shared_ptr<Buffer> buffer, ir::TensorType type) {
  std::vector<int64_t> strides = ir::contiguous_strides(type.shape);
  return TensorValue{std::move(buffer), std::move(type), std::move(strides), 0};
}

}  // namespace tensord::engine
