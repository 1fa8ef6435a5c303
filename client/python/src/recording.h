// Errors found while recording (before anything is sent), as the bindings raise them: the
// builtin exception of their kind at the recording line, ValueError for shapes and malformed
// graphs, TypeError for dtypes. Other errors pass on to the module's translator (td.TensorError).
#pragma once

#include <pybind11/pybind11.h>

#include "tensord/client.h"

namespace tensord::python {

template <typename F>
auto recorded(F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const Error& e) {
    switch (e.code()) {
      case ErrorCode::DType:
        throw pybind11::type_error(e.what());
      case ErrorCode::Shape:
      case ErrorCode::InvalidGraph:
        throw pybind11::value_error(e.what());
      default:
        throw;
    }
  }
}

// The same, with what the client cannot record (Unsupported) as NotImplementedError.
template <typename F>
auto recorded_or_not_implemented(F&& f) -> decltype(f()) {
  try {
    return recorded(std::forward<F>(f));
  } catch (const Error& e) {
    if (e.code() != ErrorCode::Unsupported) throw;
    PyErr_SetString(PyExc_NotImplementedError, e.what());
    throw pybind11::error_already_set();
  }
}

// A Python number as a weak scalar: bool, int (int64 range) or float.
inline Scalar scalar_of(pybind11::handle h) {
  if (PyBool_Check(h.ptr())) return Scalar(h.cast<bool>());
  if (PyLong_Check(h.ptr())) return Scalar(h.cast<int64_t>());
  return Scalar(h.cast<double>());
}

}  // namespace tensord::python
