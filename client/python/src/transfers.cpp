// Large transfers for Python: HostBuffer (the memory NumPy arrays are copied into or viewed
// from, shared with a daemon on the same host), from_buffer, fetch_buffer, and the progress
// observer.
#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <source_location>

#include "tensord/client.h"
#include "tensord/host_buffer.h"

namespace py = pybind11;

namespace tensord::python {

void bind_transfers(py::module_& m) {
  // Exposes the buffer protocol, so np.frombuffer(buffer, dtype) views it without a copy (and
  // keeps the buffer alive as the array's base).
  py::class_<HostBuffer, std::shared_ptr<HostBuffer>>(m, "HostBuffer", py::buffer_protocol())
      .def(py::init<size_t>())
      .def("__len__", &HostBuffer::size)
      .def_buffer([](HostBuffer& b) {
        // A zero-length buffer has no mapping; NumPy needs a pointer anyway.
        static char empty = 0;
        void* p = b.size() ? static_cast<void*>(b.data()) : static_cast<void*>(&empty);
        return py::buffer_info(p, 1, py::format_descriptor<uint8_t>::format(), 1,
                               {static_cast<py::ssize_t>(b.size())}, {py::ssize_t{1}},
                               /*readonly=*/false);
      });

  py::class_<TransferProgress>(m, "TransferProgress")
      .def_readonly("upload", &TransferProgress::upload)
      .def_readonly("done", &TransferProgress::done)
      .def_readonly("total", &TransferProgress::total);

  m.def("from_buffer", [](Session& s, ir::DType dtype, const ir::Shape& shape,
                          std::shared_ptr<HostBuffer> buffer, std::source_location loc) {
    return s.from_buffer(dtype, shape, std::move(buffer), loc);
  });
  m.def("host_buffer", [](Session& s, size_t nbytes) { return s.host_buffer(nbytes); });
  m.def("fetch_buffer", [](const Tensor& t, std::source_location loc) {
    py::gil_scoped_release unlocked;
    return fetch_buffer(t, loc);
  });
  m.def("on_transfer", [](Session& s, py::object observer) {
    if (observer.is_none()) {
      s.on_transfer(nullptr);
      return;
    }
    // Called during sync points, which run with the GIL released.
    s.on_transfer(
        [observer = std::make_shared<py::object>(std::move(observer))](const TransferProgress& p) {
          py::gil_scoped_acquire locked;
          (*observer)(p);
        });
  });
}

}  // namespace tensord::python
