// The _tensord extension: the C++ client's Session, Tensor and ops, each op taking the Python
// caller's source location explicitly. The Array API namespace on top is pure Python
// (client/python/tensord); nothing here speaks the protocol.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <complex>
#include <cstring>
#include <optional>
#include <source_location>
#include <string>
#include <vector>

#include "client/python/src/locations.h"
#include "client/python/src/nn_bindings.h"  // issue 4: nn ops
#include "client/python/src/ops_bindings.h"
#include "tensord/client.h"

namespace py = pybind11;

namespace tensord::python {

void bind_transfers(py::module_& m);  // transfers.cpp
void bind_math_ops(py::module_& m);   // math_ops.cpp
void bind_complex(py::module_& m);    // complex_bindings.cpp (issue 4)

namespace {

using Loc = std::source_location;

// An error found while recording (before anything is sent): Python sees it as the builtin
// exception for its kind, raised at the recording line. Errors from the daemon stay
// TensorError.
struct RecordError {
  Error error;
};

template <typename F>
Tensor recording(F&& f) {
  try {
    return f();
  } catch (const Error& e) {
    switch (e.code()) {
      case ErrorCode::Shape:
      case ErrorCode::DType:
      case ErrorCode::InvalidGraph:
      case ErrorCode::Unsupported:
        throw RecordError{e};
      default:
        throw;
    }
  }
}

// A Python number as a C++ client Scalar: bool, int (int64 range) or float.
Scalar to_scalar(py::handle h) {
  if (PyBool_Check(h.ptr())) return Scalar(h.cast<bool>());
  if (PyLong_Check(h.ptr())) return Scalar(h.cast<int64_t>());
  if (PyFloat_Check(h.ptr())) return Scalar(h.cast<double>());
  throw py::type_error("expected a Python bool, int or float, got " +
                       std::string(py::str(h.get_type())));
}

std::optional<Scalar> to_optional_scalar(py::handle h) {
  if (h.is_none()) return std::nullopt;
  return to_scalar(h);
}

// An elementwise operand: a tensor or a weak Python scalar.
struct PyOperand {
  explicit PyOperand(py::handle h) {
    if (py::isinstance<Tensor>(h)) {
      tensor = h.cast<Tensor>();
    } else {
      scalar = to_scalar(h);
    }
  }
  Operand at(Loc loc) const { return tensor ? Operand(*tensor, loc) : Operand(*scalar, loc); }

  std::optional<Tensor> tensor;
  std::optional<Scalar> scalar;
};

Axes to_axes(const std::optional<std::vector<int64_t>>& axes) {
  return axes ? Axes(*axes) : Axes::all();
}

template <typename T>
py::array copy_out(const Tensor& t, Loc loc, const py::dtype& dtype) {
  std::vector<T> values;
  {
    py::gil_scoped_release unlocked;
    values = t.to_vector<T>(loc);
  }
  std::vector<py::ssize_t> shape(t.shape().begin(), t.shape().end());
  py::array out(dtype, shape);
  if constexpr (std::is_same_v<T, bool>) {
    auto* dst = static_cast<bool*>(out.mutable_data());
    for (size_t i = 0; i < values.size(); ++i) dst[i] = values[i];
  } else if (!values.empty()) {  // an empty vector's data() may be null: no memcpy from it
    std::memcpy(out.mutable_data(), values.data(), values.size() * sizeof(T));
  }
  return out;
}

// A NumPy array with the tensor's values; bfloat16 comes as its uint16 bit patterns (NumPy
// has no bfloat16), which the Python layer widens to float32.
py::array fetch(const Tensor& t, Loc loc) {
  switch (t.dtype()) {
    case ir::DType::Bool:
      return copy_out<bool>(t, loc, py::dtype("bool"));
    case ir::DType::Int8:
      return copy_out<int8_t>(t, loc, py::dtype("int8"));
    case ir::DType::UInt8:
      return copy_out<uint8_t>(t, loc, py::dtype("uint8"));
    case ir::DType::Int16:
      return copy_out<int16_t>(t, loc, py::dtype("int16"));
    case ir::DType::Int32:
      return copy_out<int32_t>(t, loc, py::dtype("int32"));
    case ir::DType::Int64:
      return copy_out<int64_t>(t, loc, py::dtype("int64"));
    case ir::DType::Float16:
      return copy_out<ir::Float16>(t, loc, py::dtype("float16"));
    case ir::DType::BFloat16:
      return copy_out<ir::BFloat16>(t, loc, py::dtype("uint16"));
    case ir::DType::Float32:
      return copy_out<float>(t, loc, py::dtype("float32"));
    case ir::DType::Float64:
      return copy_out<double>(t, loc, py::dtype("float64"));
    case ir::DType::Complex64:  // issue 4
      return copy_out<std::complex<float>>(t, loc, py::dtype("complex64"));
    case ir::DType::Complex128:
      return copy_out<std::complex<double>>(t, loc, py::dtype("complex128"));
  }
  throw py::value_error("unknown dtype");
}

// Row-major bytes of a C-contiguous array (the Python layer makes it so).
std::vector<std::byte> bytes_of(const py::array& a) {
  if (!(a.flags() & py::array::c_style)) throw py::value_error("array must be C-contiguous");
  std::vector<std::byte> bytes(static_cast<size_t>(a.nbytes()));
  if (!bytes.empty()) std::memcpy(bytes.data(), a.data(), bytes.size());
  return bytes;
}

void bind_types(py::module_& m) {
  py::enum_<ir::DType>(m, "DType")
      .value("bool", ir::DType::Bool)
      .value("int8", ir::DType::Int8)
      .value("uint8", ir::DType::UInt8)
      .value("int16", ir::DType::Int16)
      .value("int32", ir::DType::Int32)
      .value("int64", ir::DType::Int64)
      .value("float16", ir::DType::Float16)
      .value("bfloat16", ir::DType::BFloat16)
      .value("float32", ir::DType::Float32)
      .value("float64", ir::DType::Float64)
      .value("complex64", ir::DType::Complex64)  // issue 4
      .value("complex128", ir::DType::Complex128);
  m.def("promote", &ir::promote);

  py::class_<Loc>(m, "Location")
      .def_property_readonly("file", [](const Loc& l) { return std::string(l.file_name()); })
      .def_property_readonly("line", [](const Loc& l) { return l.line(); });
  py::class_<LocationTable>(m, "LocationTable").def(py::init<>()).def("get", &LocationTable::get);

  py::class_<Tensor>(m, "Tensor")
      .def_property_readonly("dtype", [](const Tensor& t) { return t.dtype(); })
      .def_property_readonly("shape",
                             [](const Tensor& t) {
                               py::tuple shape(t.shape().size());
                               // A data-dependent size is None until synced (Array API).
                               for (size_t i = 0; i < t.shape().size(); ++i) {
                                 if (t.shape()[i] < 0) {
                                   shape[i] = py::none();
                                 } else {
                                   shape[i] = t.shape()[i];
                                 }
                               }
                               return shape;
                             })
      .def_property_readonly("materialized", [](const Tensor& t) { return t.materialized(); })
      .def("fetch", &fetch);

  py::class_<DeviceInfo>(m, "DeviceInfo")
      .def_readonly("kind", &DeviceInfo::kind)
      .def_readonly("index", &DeviceInfo::index)
      .def_readonly("name", &DeviceInfo::name)
      .def_readonly("total_memory", &DeviceInfo::total_memory)
      .def_readonly("threads", &DeviceInfo::threads);
  py::class_<ServerInfo>(m, "ServerInfo")
      .def_readonly("daemon_version", &ServerInfo::daemon_version)
      .def_readonly("devices", &ServerInfo::devices);
  py::class_<SessionStats>(m, "SessionStats")
      .def_readonly("live_tensors", &SessionStats::live_tensors)
      .def_readonly("live_bytes", &SessionStats::live_bytes)
      .def_readonly("runs", &SessionStats::runs)
      .def_readonly("daemon_live_tensors", &SessionStats::daemon_live_tensors)
      .def_readonly("daemon_live_bytes", &SessionStats::daemon_live_bytes)
      .def_readonly("holdings", &SessionStats::holdings);
  py::class_<Holding>(m, "Holding")
      .def_readonly("origin", &Holding::origin)
      .def_readonly("bytes", &Holding::bytes)
      .def_readonly("tensors", &Holding::tensors);

  py::class_<Session>(m, "Session")
      .def_property_readonly("info", &Session::info)
      .def("stats", &Session::stats)
      .def("sync",
           [](Session& s, const std::vector<Tensor>& ts, Loc loc) {
             py::gil_scoped_release unlocked;
             s.sync(ts, loc);
           })
      .def("from_array",
           [](Session& s, ir::DType dtype, const ir::Shape& shape, const py::array& a, Loc loc) {
             return recording([&] { return s.from_bytes(dtype, shape, bytes_of(a), loc); });
           })
      .def("full",
           [](Session& s, const ir::Shape& shape, py::handle value, ir::DType dtype, Loc loc) {
             return recording([&] { return s.full(shape, to_scalar(value), dtype, loc); });
           })
      .def("arange",
           [](Session& s, py::handle start, py::handle stop, py::handle step,
              std::optional<ir::DType> dtype, Loc loc) {
             return recording([&] {
               return s.arange(to_scalar(start), to_scalar(stop), to_scalar(step), dtype, loc);
             });
           })
      .def("eye", [](Session& s, int64_t n, std::optional<int64_t> cols, int64_t k, ir::DType dtype,
                     Loc loc) { return recording([&] { return s.eye(n, cols, k, dtype, loc); }); })
      .def("rand",
           [](Session& s, const ir::Shape& shape, uint64_t seed, ir::DType dtype, Loc loc) {
             return recording([&] { return s.rand(shape, seed, dtype, loc); });
           })
      .def("randn",
           [](Session& s, const ir::Shape& shape, uint64_t seed, ir::DType dtype, Loc loc) {
             return recording([&] { return s.randn(shape, seed, dtype, loc); });
           });

  m.def("default_address", &default_address);
  m.def(
      "connect",
      [](const std::string& address, const std::string& token, const std::string& name) {
        ConnectOptions options;
        options.token = token;
        options.session_name = name;
        py::gil_scoped_release unlocked;
        return connect(address, options);
      },
      py::arg("address"), py::arg("token"), py::arg("name") = "python");
}

#define TENSORD_UNARY(name) \
  m.def(#name,              \
        [](const Tensor& x, Loc loc) { return recording([&] { return tensord::name(x, loc); }); })
#define TENSORD_BINARY(name)                                                      \
  m.def(#name, [](py::handle a, py::handle b, Loc loc) {                          \
    PyOperand pa(a), pb(b);                                                       \
    return recording([&] { return tensord::name(pa.at(loc), pb.at(loc), loc); }); \
  })
#define TENSORD_REDUCE(name)                                                                    \
  m.def(#name,                                                                                  \
        [](const Tensor& x, std::optional<std::vector<int64_t>> axes, bool keepdims, Loc loc) { \
          return recording([&] { return tensord::name(x, to_axes(axes), keepdims, loc); });     \
        })

void bind_elementwise(py::module_& m) {
  TENSORD_UNARY(neg);
  TENSORD_UNARY(abs);
  TENSORD_UNARY(exp);
  TENSORD_UNARY(log);
  TENSORD_UNARY(sqrt);
  TENSORD_UNARY(rsqrt);
  TENSORD_UNARY(sin);
  TENSORD_UNARY(cos);
  TENSORD_UNARY(tanh);
  TENSORD_UNARY(sigmoid);
  TENSORD_UNARY(relu);
  TENSORD_UNARY(erf);
  TENSORD_UNARY(floor);
  TENSORD_UNARY(ceil);
  TENSORD_UNARY(round);
  TENSORD_UNARY(sign);
  TENSORD_UNARY(logical_not);
  TENSORD_UNARY(silu);
  TENSORD_UNARY(contiguous);
  m.def("astype", [](const Tensor& x, ir::DType dtype, Loc loc) {
    return recording([&] { return tensord::astype(x, dtype, loc); });
  });
  m.def("gelu", [](const Tensor& x, bool tanh_approximation, Loc loc) {
    return recording([&] { return tensord::gelu(x, tanh_approximation, loc); });
  });
  m.def("clamp", [](const Tensor& x, py::handle min, py::handle max, Loc loc) {
    return recording(
        [&] { return tensord::clamp(x, to_optional_scalar(min), to_optional_scalar(max), loc); });
  });

  TENSORD_BINARY(add);
  TENSORD_BINARY(sub);
  TENSORD_BINARY(mul);
  TENSORD_BINARY(div);
  TENSORD_BINARY(pow);
  TENSORD_BINARY(maximum);
  TENSORD_BINARY(minimum);
  TENSORD_BINARY(eq);
  TENSORD_BINARY(ne);
  TENSORD_BINARY(lt);
  TENSORD_BINARY(le);
  TENSORD_BINARY(gt);
  TENSORD_BINARY(ge);
  TENSORD_BINARY(logical_and);
  TENSORD_BINARY(logical_or);
  m.def("where", [](const Tensor& cond, py::handle a, py::handle b, Loc loc) {
    PyOperand pa(a), pb(b);
    return recording([&] { return tensord::where(cond, pa.at(loc), pb.at(loc), loc); });
  });
}

void bind_structural(py::module_& m) {
  TENSORD_REDUCE(sum);
  TENSORD_REDUCE(prod);
  TENSORD_REDUCE(max);
  TENSORD_REDUCE(min);
  TENSORD_REDUCE(mean);
  m.def("var", [](const Tensor& x, std::optional<std::vector<int64_t>> axes, double correction,
                  bool keepdims, Loc loc) {
    return recording([&] { return tensord::var(x, to_axes(axes), correction, keepdims, loc); });
  });
  m.def("argmax", [](const Tensor& x, std::optional<int64_t> axis, bool keepdims, Loc loc) {
    return recording([&] { return tensord::argmax(x, axis, keepdims, loc); });
  });
  m.def("argmin", [](const Tensor& x, std::optional<int64_t> axis, bool keepdims, Loc loc) {
    return recording([&] { return tensord::argmin(x, axis, keepdims, loc); });
  });

  m.def("reshape", [](const Tensor& x, const ir::Shape& shape, Loc loc) {
    return recording([&] { return tensord::reshape(x, shape, loc); });
  });
  m.def("permute", [](const Tensor& x, const std::vector<int64_t>& dims, Loc loc) {
    return recording([&] { return tensord::permute(x, dims, loc); });
  });
  m.def("transpose", [](const Tensor& x, int64_t d0, int64_t d1, Loc loc) {
    return recording([&] { return tensord::transpose(x, d0, d1, loc); });
  });
  m.def("expand", [](const Tensor& x, const ir::Shape& shape, Loc loc) {
    return recording([&] { return tensord::expand(x, shape, loc); });
  });
  m.def("squeeze", [](const Tensor& x, std::optional<std::vector<int64_t>> axes, Loc loc) {
    return recording([&] { return tensord::squeeze(x, to_axes(axes), loc); });
  });
  m.def("unsqueeze", [](const Tensor& x, const std::vector<int64_t>& axes, Loc loc) {
    return recording([&] { return tensord::unsqueeze(x, Axes(axes), loc); });
  });
  m.def("slice", [](const Tensor& x, int64_t axis, std::optional<int64_t> start,
                    std::optional<int64_t> stop, int64_t step, Loc loc) {
    return recording([&] { return tensord::slice(x, axis, start, stop, step, loc); });
  });
  m.def("flip", [](const Tensor& x, std::optional<std::vector<int64_t>> axes, Loc loc) {
    return recording([&] { return tensord::flip(x, to_axes(axes), loc); });
  });
  m.def("concat", [](const std::vector<Tensor>& xs, int64_t axis, Loc loc) {
    return recording([&] { return tensord::concat(xs, axis, loc); });
  });
  m.def("stack", [](const std::vector<Tensor>& xs, int64_t axis, Loc loc) {
    return recording([&] { return tensord::stack(xs, axis, loc); });
  });
  m.def("pad", [](const Tensor& x, const std::vector<int64_t>& pads, py::handle value, Loc loc) {
    return recording([&] { return tensord::pad(x, pads, to_scalar(value), loc); });
  });
  m.def("index_select", [](const Tensor& x, int64_t axis, const Tensor& index, Loc loc) {
    return recording([&] { return tensord::index_select(x, axis, index, loc); });
  });
  m.def("gather", [](const Tensor& x, int64_t axis, const Tensor& index, Loc loc) {
    return recording([&] { return tensord::gather(x, axis, index, loc); });
  });

  m.def("matmul", [](const Tensor& a, const Tensor& b, Loc loc) {
    return recording([&] { return tensord::matmul(a, b, loc); });
  });
  m.def("softmax", [](const Tensor& x, int64_t axis, Loc loc) {
    return recording([&] { return tensord::softmax(x, axis, loc); });
  });
  m.def("log_softmax", [](const Tensor& x, int64_t axis, Loc loc) {
    return recording([&] { return tensord::log_softmax(x, axis, loc); });
  });
  m.def("layer_norm", [](const Tensor& x, int64_t normalized_ndim, std::optional<Tensor> weight,
                         std::optional<Tensor> bias, double eps, Loc loc) {
    return recording([&] {
      return tensord::layer_norm(x, normalized_ndim, weight.value_or(Tensor()),
                                 bias.value_or(Tensor()), eps, loc);
    });
  });
}

void bind_errors(py::module_& m) {
  // Errors from the daemon (and any not found while recording) are TensorError.
  py::register_exception<Error>(m, "TensorError", PyExc_RuntimeError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const RecordError& e) {
      PyObject* type = PyExc_ValueError;  // Shape, InvalidGraph
      if (e.error.code() == ErrorCode::DType) type = PyExc_TypeError;
      if (e.error.code() == ErrorCode::Unsupported) type = PyExc_NotImplementedError;
      PyErr_SetString(type, e.error.what());
    }
  });
}

}  // namespace

void bind_profile(py::module_& m);  // profile_bindings.cpp

void bind_fusion(py::module_& m);           // fusion.cpp
void bind_device_settings(py::module_& m);  // device_bindings.cpp
void bind_linalg(py::module_& m);           // linalg_bindings.cpp
void bind_index_ops(py::module_& m);        // index_bindings.cpp (h/datadep)
}  // namespace tensord::python

PYBIND11_MODULE(_tensord, m) {
  m.doc() = "tensord's C++ client, bound for the tensord Python package";
  tensord::python::bind_errors(m);
  tensord::python::bind_types(m);
  tensord::python::bind_elementwise(m);
  tensord::python::bind_structural(m);
  tensord::python::bind_profile(m);
  tensord::python::bind_transfers(m);
  tensord::python::bind_math_ops(m);
  tensord::python::bind_fusion(m);
  tensord::python::bind_device_settings(m);
  tensord::python::bind_linalg(m);
  tensord::python::bind_ops(m);
  tensord::python::bind_index_ops(m);
  tensord::python::bind_nn(m);       // issue 4: nn ops
  tensord::python::bind_complex(m);  // issue 4: complex numbers and FFT
}
