// Elementwise loops over strided operands (the CPU backend's TensorIterator).
//
// A loop runs over an iteration shape for up to four operands, each a strided view whose shape
// broadcasts to the loop shape (missing leading dims and size-1 dims get stride 0). The
// constructor drops size-1 dims and merges adjacent dims wherever every operand's strides
// allow, so contiguous and scalar operands collapse into one flat row and the kernels' inner
// loops see long rows with constant strides.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>

#include "engine/backends/cpu/function_ref.h"
#include "engine/exec/tensor_value.h"
#include "engine/ir/shape.h"

namespace tensord::cpu {

inline constexpr int kMaxOperands = 4;

// A strided view by value: fixed-size arrays so building one never allocates.
struct Operand {
  char* data = nullptr;  // element 0 of the view
  ir::DType dtype = ir::DType::Float32;
  int64_t itemsize = 0;
  int rank = 0;
  // Only the first `rank` entries are meaningful (left uninitialized: built per op).
  int64_t shape[ir::kMaxRank];
  int64_t strides[ir::kMaxRank];  // elements; 0 broadcasts, negative flips

  std::span<const int64_t> dims() const { return {shape, static_cast<size_t>(rank)}; }
  int64_t numel() const;
  bool is_contiguous() const;  // row-major with no gaps (size-1 dims may have any stride)
};

// The view of a value (contiguous strides when the value carries none).
Operand operand_of(const engine::TensorValue& v);

class StridedLoop {
 public:
  // Throws tensord::Error(Internal) when an operand does not broadcast to `shape`.
  StridedLoop(std::span<const int64_t> shape, std::span<const Operand> operands);

  int64_t numel() const { return numel_; }
  int ndim() const { return ndim_; }
  int64_t inner_size() const { return sizes_[0]; }
  const int64_t* inner_strides() const { return strides_[0]; }  // bytes, per operand

  // A row kernel: row(ptrs, byte_strides, n) handles n elements, ptrs[k] being operand k's
  // first one and byte_strides[k] its step.
  using Row = FunctionRef<void(char* const* ptrs, const int64_t* byte_strides, int64_t n)>;

  // Calls `row` for the rows that make up elements [begin, end) in row-major order.
  void run(int64_t begin, int64_t end, Row row) const;

 private:
  int nops_ = 0;
  int ndim_ = 0;  // >= 1 unless numel_ == 0; dim 0 is the innermost
  int64_t numel_ = 0;
  // Only the first ndim_ dims and nops_ operands are meaningful.
  int64_t sizes_[ir::kMaxRank];
  int64_t strides_[ir::kMaxRank][kMaxOperands];
  char* data_[kMaxOperands];
};

}  // namespace tensord::cpu
