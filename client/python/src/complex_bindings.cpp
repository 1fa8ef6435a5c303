// Issue 4: complex numbers and the FFT primitives for Python (tensord/_complex.py and
// tensord/fft.py build numpy's functions from these). Self-contained, like math_ops.cpp: its own
// mapping of recording errors to Python exceptions, so module.cpp only gains the bind call.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <source_location>
#include <vector>

#include "client/python/src/recording.h"
#include "tensord/client.h"

namespace py = pybind11;

namespace tensord::python {
namespace {

using Loc = std::source_location;

fft::Norm to_norm(int64_t code) {
  return code == 1 ? fft::Norm::Ortho : code == 2 ? fft::Norm::Forward : fft::Norm::Backward;
}

}  // namespace

void bind_complex(py::module_& m) {
  m.def("real", [](const Tensor& x, Loc loc) {
    return recorded_or_not_implemented([&] { return real(x, loc); });
  });
  m.def("imag", [](const Tensor& x, Loc loc) {
    return recorded_or_not_implemented([&] { return imag(x, loc); });
  });
  m.def("angle", [](const Tensor& x, Loc loc) {
    return recorded_or_not_implemented([&] { return angle(x, loc); });
  });
  m.def("conj", [](const Tensor& x, Loc loc) {
    return recorded_or_not_implemented([&] { return conj(x, loc); });
  });
  m.def("complex", [](const Tensor& re, const Tensor& im, Loc loc) {
    return recorded_or_not_implemented([&] { return complex(re, im, loc); });
  });
  // The primitives: axes, lengths (None: the defaults of docs/ops.md), norm code 0/1/2.
  using Lengths = std::optional<std::vector<int64_t>>;
  m.def("fftn_c2c", [](const Tensor& x, const std::vector<int64_t>& axes, Lengths s, int64_t norm,
                       bool inverse, Loc loc) {
    return recorded_or_not_implemented([&] {
      return inverse ? fft::ifftn(x, s, axes, to_norm(norm), loc)
                     : fft::fftn(x, s, axes, to_norm(norm), loc);
    });
  });
  m.def("fftn_r2c", [](const Tensor& x, const std::vector<int64_t>& axes, Lengths s, int64_t norm,
                       Loc loc) {
    return recorded_or_not_implemented([&] { return fft::rfftn(x, s, axes, to_norm(norm), loc); });
  });
  m.def("fftn_c2r", [](const Tensor& x, const std::vector<int64_t>& axes, Lengths s, int64_t norm,
                       Loc loc) {
    return recorded_or_not_implemented([&] { return fft::irfftn(x, s, axes, to_norm(norm), loc); });
  });
  m.def("fftfreq", [](Session& s, int64_t n, double d, ir::DType dtype, Loc loc) {
    return recorded_or_not_implemented([&] { return fft::fftfreq(s, n, d, dtype, loc); });
  });
  m.def("rfftfreq", [](Session& s, int64_t n, double d, ir::DType dtype, Loc loc) {
    return recorded_or_not_implemented([&] { return fft::rfftfreq(s, n, d, dtype, loc); });
  });
}

}  // namespace tensord::python
