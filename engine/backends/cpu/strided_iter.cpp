#include "engine/backends/cpu/strided_iter.h"

#include <algorithm>
#include <string>

#include "engine/ir/error.h"

namespace tensord::cpu {

int64_t Operand::numel() const {
  return ir::numel(dims());
}

bool Operand::is_contiguous() const {
  int64_t expected = 1;
  for (int d = rank - 1; d >= 0; --d) {
    if (shape[d] != 1 && strides[d] != expected) return false;
    expected *= shape[d];
  }
  return true;
}

Operand operand_of(const engine::TensorValue& v) {
  Operand op;
  op.data = static_cast<char*>(v.raw());
  op.dtype = v.type.dtype;
  op.itemsize = static_cast<int64_t>(ir::itemsize(v.type.dtype));
  op.rank = static_cast<int>(v.type.rank());
  if (op.rank > ir::kMaxRank) {
    throw Error(ErrorCode::Internal, "rank " + std::to_string(op.rank) + " is above the maximum");
  }
  bool has_strides = v.strides.size() == v.type.shape.size();
  int64_t contiguous = 1;
  for (int d = op.rank - 1; d >= 0; --d) {
    op.shape[d] = v.type.shape[d];
    op.strides[d] = has_strides ? v.strides[d] : contiguous;
    contiguous *= op.shape[d];
  }
  return op;
}

StridedLoop::StridedLoop(std::span<const int64_t> shape, std::span<const Operand> operands)
    : nops_(static_cast<int>(operands.size())), numel_(ir::numel(shape)) {
  int rank = static_cast<int>(shape.size());
  if (nops_ > kMaxOperands || rank > ir::kMaxRank) {
    throw Error(ErrorCode::Internal, "elementwise loop beyond its fixed limits");
  }
  for (int k = 0; k < nops_; ++k) {
    const Operand& op = operands[k];
    data_[k] = op.data;
    if (op.rank > rank) throw Error(ErrorCode::Internal, "operand rank above the loop rank");
    for (int d = 0; d < op.rank; ++d) {
      int64_t want = shape[rank - op.rank + d];
      if (op.shape[d] != want && op.shape[d] != 1) {
        throw Error(ErrorCode::Internal, "operand shape " + ir::to_string(op.dims()) +
                                             " does not broadcast to " + ir::to_string(shape));
      }
    }
  }
  if (numel_ == 0) return;
  // Innermost first: skip size-1 dims, merge a dim into the previous one when every operand
  // steps across both as if they were one.
  for (int d = rank - 1; d >= 0; --d) {
    if (shape[d] == 1) continue;
    int64_t s[kMaxOperands] = {};
    for (int k = 0; k < nops_; ++k) {
      const Operand& op = operands[k];
      int od = d - (rank - op.rank);
      s[k] = od >= 0 && op.shape[od] != 1 ? op.strides[od] * op.itemsize : 0;
    }
    bool merge = ndim_ > 0;
    for (int k = 0; merge && k < nops_; ++k) {
      merge = s[k] == strides_[ndim_ - 1][k] * sizes_[ndim_ - 1];
    }
    if (merge) {
      sizes_[ndim_ - 1] *= shape[d];
    } else {
      sizes_[ndim_] = shape[d];
      for (int k = 0; k < nops_; ++k) strides_[ndim_][k] = s[k];
      ++ndim_;
    }
  }
  if (ndim_ == 0) {  // a single element
    sizes_[0] = 1;
    for (int k = 0; k < nops_; ++k) strides_[0][k] = 0;
    ndim_ = 1;
  }
}

void StridedLoop::run(int64_t begin, int64_t end, Row row) const {
  if (begin >= end) return;
  char* ptrs[kMaxOperands] = {};
  if (ndim_ == 1) {
    for (int k = 0; k < nops_; ++k) ptrs[k] = data_[k] + begin * strides_[0][k];
    row(ptrs, strides_[0], end - begin);
    return;
  }
  int64_t idx[ir::kMaxRank];
  int64_t rest = begin;
  for (int d = 0; d < ndim_; ++d) {
    idx[d] = rest % sizes_[d];
    rest /= sizes_[d];
  }
  for (int k = 0; k < nops_; ++k) {
    ptrs[k] = data_[k];
    for (int d = 0; d < ndim_; ++d) ptrs[k] += idx[d] * strides_[d][k];
  }
  int64_t left = end - begin;
  for (;;) {
    int64_t n = std::min(sizes_[0] - idx[0], left);
    row(ptrs, strides_[0], n);
    left -= n;
    if (left == 0) return;
    // Back to the start of this row, then one step along dim 1 with carries outward.
    for (int k = 0; k < nops_; ++k) ptrs[k] += strides_[1][k] - idx[0] * strides_[0][k];
    idx[0] = 0;
    for (int d = 1; ++idx[d] == sizes_[d]; ++d) {
      idx[d] = 0;
      for (int k = 0; k < nops_; ++k) {
        ptrs[k] += strides_[d + 1][k] - sizes_[d] * strides_[d][k];
      }
    }
  }
}

}  // namespace tensord::cpu
