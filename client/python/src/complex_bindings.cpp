// Issue 4: complex numbers and the FFT primitives for Python (tensord/_complex.py and
// tensord/fft.py build numpy's functions from these). Self-contained, like math_ops.cpp: its own
// mapping of recording errors to Python exceptions, so module.cpp only gains the bind call.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <source_location>
#include <vector>

#include "tensord/client.h"

namespace py = pybind11;

namespace tensord::python {
namespace {

using Loc = std::source_location;

template <typename F>
Tensor record(F&& f) {
  try {
    return f();
  } catch (const Error& e) {
    switch (e.code()) {
      case ErrorCode::Shape:
      case ErrorCode::InvalidGraph:
        throw py::value_error(e.what());
      case ErrorCode::DType:
        throw py::type_error(e.what());
      case ErrorCode::Unsupported:
        PyErr_SetString(PyExc_NotImplementedError, e.what());
        throw py::error_already_set();
      default:
        throw;
    }
  }
}

fft::Norm to_norm(int64_t code) {
  return code == 1 ? fft::Norm::Ortho : code == 2 ? fft::Norm::Forward : fft::Norm::Backward;
}

}  // namespace

void bind_complex(py::module_& m) {
  m.def("real", [](const Tensor& x, Loc loc) { return record([&] { return real(x, loc); }); });
  m.def("imag", [](const Tensor& x, Loc loc) { return record([&] { return imag(x, loc); }); });
  m.def("angle", [](const Tensor& x, Loc loc) { return record([&] { return angle(x, loc); }); });
  m.def("conj", [](const Tensor& x, Loc loc) { return record([&] { return conj(x, loc); }); });
  m.def("complex", [](const Tensor& re, const Tensor& im, Loc loc) {
    return record([&] { return complex(re, im, loc); });
  });
  // The primitives: axes, lengths (None: the defaults of docs/ops.md), norm code 0/1/2.
  using Lengths = std::optional<std::vector<int64_t>>;
  m.def("fftn_c2c", [](const Tensor& x, const std::vector<int64_t>& axes, Lengths s, int64_t norm,
                       bool inverse, Loc loc) {
    return record([&] {
      return inverse ? fft::ifftn(x, s, axes, to_norm(norm), loc)
                     : fft::fftn(x, s, axes, to_norm(norm), loc);
    });
  });
  m.def("fftn_r2c",
        [](const Tensor& x, const std::vector<int64_t>& axes, Lengths s, int64_t norm, Loc loc) {
          return record([&] { return fft::rfftn(x, s, axes, to_norm(norm), loc); });
        });
  m.def("fftn_c2r",
        [](const Tensor& x, const std::vector<int64_t>& axes, Lengths s, int64_t norm, Loc loc) {
          return record([&] { return fft::irfftn(x, s, axes, to_norm(norm), loc); });
        });
  m.def("fftfreq", [](Session& s, int64_t n, double d, ir::DType dtype, Loc loc) {
    return record([&] { return fft::fftfreq(s, n, d, dtype, loc); });
  });
  m.def("rfftfreq", [](Session& s, int64_t n, double d, ir::DType dtype, Loc loc) {
    return record([&] { return fft::rfftfreq(s, n, d, dtype, loc); });
  });
}

}  // namespace tensord::python
