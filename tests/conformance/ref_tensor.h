// Host tensors in reference form and the dtype rules of docs/ops.md, written independently of
// the IR and the backends (no ir::promote, no ir::Float16, no kernels): the conformance table
// checks those against this.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "engine/ir/attrs.h"
#include "engine/ir/dtype.h"
#include "engine/ir/error.h"
#include "engine/ir/shape.h"

namespace tensord::conformance {

using ir::DType;
using ir::Shape;

// One element: floats as double; integers and bools exactly as int64 (so int64 boundary
// values and wrapping are exact). `f` also holds the integer's value as a double.
struct Num {
  bool is_float = false;
  double f = 0;
  int64_t i = 0;

  static Num of_float(double v) { return {true, v, 0}; }
  static Num of_int(int64_t v) { return {false, static_cast<double>(v), v}; }
  bool nonzero() const { return is_float ? f != 0 || f != f : i != 0; }
};

// A row-major host tensor. Floats live in `f`, integers and bools in `i`.
struct RefTensor {
  DType dtype = DType::Float32;
  Shape shape;
  std::vector<double> f;
  std::vector<int64_t> i;

  RefTensor() = default;
  RefTensor(DType t, Shape s);  // zero-filled

  bool floating() const { return ir::is_floating(dtype); }
  int64_t numel() const;
  Num at(int64_t k) const { return floating() ? Num::of_float(f[k]) : Num::of_int(i[k]); }
  double as_double(int64_t k) const { return floating() ? f[k] : static_cast<double>(i[k]); }
  // Stores `v` converted to this tensor's dtype by the cast rules.
  void put(int64_t k, Num v);
};

// The reference's verdict that docs/ops.md rejects an op's inputs. `at_run` marks errors that
// only the data reveals (an index out of range); the rest are raised at inference.
struct RefError {
  ErrorCode code;
  bool at_run = false;
  std::string why;
};
[[noreturn]] void reject(ErrorCode code, std::string why, bool at_run = false);

// dtype rules, from docs/ops.md and the comments of engine/ir/dtype.h.
DType ref_promote(DType a, DType b);
int64_t type_min(DType t);
int64_t type_max(DType t);
int64_t wrap_to(DType t, int64_t v);      // two's complement wrap into an integer dtype
double round_to(DType t, double v);       // nearest even in a float dtype, overflow -> inf
Num cast_to(DType t, Num v);              // the `cast` op's rules for any pair of dtypes
Num scalar_attr(const ir::AttrValue& v);  // an Int, Float or Bool attribute as a Num
double max_finite(DType t);

// Bytes as the engine stores them (little-endian, IEEE binary16 / bfloat16 bit layouts).
std::vector<std::byte> encode(const RefTensor& t);
RefTensor decode(DType t, const Shape& shape, std::span<const std::byte> bytes);

// Row-major index helpers.
std::vector<int64_t> unravel(int64_t flat, const Shape& shape);
int64_t ravel(std::span<const int64_t> index, const Shape& shape);
std::string index_str(std::span<const int64_t> index);
std::string shape_str(const Shape& shape);

}  // namespace tensord::conformance
