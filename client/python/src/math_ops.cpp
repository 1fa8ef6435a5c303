// Elementwise math of issue 4 for Python: inverse trigonometric and hyperbolic functions,
// exp/log variants, logaddexp, hypot, copysign, signbit, floor_divide, remainder and the
// bitwise ops, gcd and lcm. Self-contained (its own recording-error mapping) so that module.cpp
// only gains the call to bind_math_ops.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <source_location>
#include <string>

#include "client/python/src/recording.h"
#include "tensord/client.h"

namespace py = pybind11;

namespace tensord::python {
namespace {

using Loc = std::source_location;

// A tensor or a weak Python scalar (bool, int, float). Operand points at its tensor, so the
// tensor is held here for the call.
struct PyOperand {
  explicit PyOperand(py::handle h) {
    if (py::isinstance<Tensor>(h)) {
      tensor = h.cast<Tensor>();
    } else if (PyBool_Check(h.ptr())) {
      scalar = Scalar(h.cast<bool>());
    } else if (PyLong_Check(h.ptr())) {
      scalar = Scalar(h.cast<int64_t>());
    } else if (PyFloat_Check(h.ptr())) {
      scalar = Scalar(h.cast<double>());
    } else {
      throw py::type_error("expected a tensor or a Python bool, int or float, got " +
                           std::string(py::str(h.get_type())));
    }
  }
  Operand at(Loc loc) const { return tensor ? Operand(*tensor, loc) : Operand(*scalar, loc); }

  std::optional<Tensor> tensor;
  std::optional<Scalar> scalar;
};

#define TENSORD_MATH_UNARY(name)                                               \
  m.def(#name, [](const Tensor& x, Loc loc) {                                  \
    return recorded_or_not_implemented([&] { return tensord::name(x, loc); }); \
  })
#define TENSORD_MATH_BINARY(name)                                    \
  m.def(#name, [](py::handle a, py::handle b, Loc loc) {             \
    PyOperand pa(a), pb(b);                                          \
    return recorded_or_not_implemented(                              \
        [&] { return tensord::name(pa.at(loc), pb.at(loc), loc); }); \
  })

}  // namespace

void bind_math_ops(py::module_& m) {
  TENSORD_MATH_UNARY(exp2);
  TENSORD_MATH_UNARY(expm1);
  TENSORD_MATH_UNARY(log2);
  TENSORD_MATH_UNARY(log10);
  TENSORD_MATH_UNARY(log1p);
  TENSORD_MATH_UNARY(tan);
  TENSORD_MATH_UNARY(asin);
  TENSORD_MATH_UNARY(acos);
  TENSORD_MATH_UNARY(atan);
  TENSORD_MATH_UNARY(sinh);
  TENSORD_MATH_UNARY(cosh);
  TENSORD_MATH_UNARY(asinh);
  TENSORD_MATH_UNARY(acosh);
  TENSORD_MATH_UNARY(atanh);
  TENSORD_MATH_UNARY(signbit);
  TENSORD_MATH_UNARY(bitwise_not);
  TENSORD_MATH_UNARY(reciprocal);
  TENSORD_MATH_UNARY(frac);
  TENSORD_MATH_UNARY(erfc);
  TENSORD_MATH_UNARY(isinf);
  TENSORD_MATH_UNARY(isfinite);
  TENSORD_MATH_BINARY(atan2);
  TENSORD_MATH_BINARY(hypot);
  TENSORD_MATH_BINARY(logaddexp);
  TENSORD_MATH_BINARY(logaddexp2);
  TENSORD_MATH_BINARY(fmod);
  TENSORD_MATH_BINARY(copysign);
  TENSORD_MATH_BINARY(remainder);
  TENSORD_MATH_BINARY(floor_divide);
  TENSORD_MATH_BINARY(bitwise_and);
  TENSORD_MATH_BINARY(bitwise_or);
  TENSORD_MATH_BINARY(bitwise_xor);
  TENSORD_MATH_BINARY(bitwise_left_shift);
  TENSORD_MATH_BINARY(bitwise_right_shift);
  TENSORD_MATH_BINARY(gcd);
  TENSORD_MATH_BINARY(lcm);
  m.def(
      "nan_to_num",
      [](const Tensor& x, double nan, std::optional<double> posinf, std::optional<double> neginf,
         Loc loc) {
        return recorded_or_not_implemented(
            [&] { return tensord::nan_to_num(x, nan, posinf, neginf, loc); });
      },
      py::arg("x"), py::arg("nan"), py::arg("posinf"), py::arg("neginf"), py::arg("loc"));
}

}  // namespace tensord::python
