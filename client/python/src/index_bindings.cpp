// Bindings of issue 4's remaining indexing ops and the data-dependent ones (h/datadep):
// the C++ client's functions, each taking the Python caller's location. Recording errors
// become the builtin exception of their kind (ValueError for shapes, TypeError for dtypes).
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

}  // namespace

void bind_index_ops(py::module_& m) {
  m.def("searchsorted", [](const Tensor& seq, const Tensor& values, std::optional<Tensor> sorter,
                           bool right, Loc loc) {
    return recorded([&] {
      return sorter ? tensord::searchsorted(seq, values, *sorter, right, loc)
                    : tensord::searchsorted(seq, values, right, loc);
    });
  });
  m.def("bucketize", [](const Tensor& x, const Tensor& boundaries, bool right, Loc loc) {
    return recorded([&] { return tensord::bucketize(x, boundaries, right, loc); });
  });
  m.def("scatter_reduce", [](const Tensor& x, int64_t axis, const Tensor& index, const Tensor& src,
                             int64_t reduce, bool include_self, Loc loc) {
    return recorded([&] {
      return tensord::scatter_reduce(x, axis, index, src, static_cast<ScatterReduce>(reduce),
                                     include_self, loc);
    });
  });
  m.def("scatter_value",
        [](const Tensor& x, int64_t axis, const Tensor& index, py::handle value, Loc loc) {
          return recorded([&] { return tensord::scatter(x, axis, index, scalar_of(value), loc); });
        });
  m.def("index_put", [](const Tensor& x, const std::vector<Tensor>& indices, const Tensor& values,
                        bool accumulate, Loc loc) {
    return recorded([&] { return tensord::index_put(x, indices, values, accumulate, loc); });
  });
  m.def("unfold", [](const Tensor& x, int64_t axis, int64_t size, int64_t step, Loc loc) {
    return recorded([&] { return tensord::unfold(x, axis, size, step, loc); });
  });
  m.def("nonzero", [](const Tensor& x, Loc loc) {
    return recorded([&] { return tensord::nonzero(x, loc); });
  });
  m.def("flatnonzero", [](const Tensor& x, Loc loc) {
    return recorded([&] { return tensord::flatnonzero(x, loc); });
  });
  m.def("where_nonzero", [](const Tensor& cond, Loc loc) {
    return recorded([&] { return tensord::where(cond, loc); });
  });
  m.def("masked_select", [](const Tensor& x, const Tensor& mask, Loc loc) {
    return recorded([&] { return tensord::masked_select(x, mask, loc); });
  });
  // (values, indices, inverse_indices, counts) of one unique node: the Array API's unique_*
  // functions each take what they return from it.
  m.def("unique_all", [](const Tensor& x, Loc loc) {
    tensord::UniqueAll r = recorded([&] { return tensord::unique_all(x, loc); });
    return py::make_tuple(std::move(r.values), std::move(r.indices), std::move(r.inverse_indices),
                          std::move(r.counts));
  });
  m.def("repeat_interleave_tensor",
        [](const Tensor& x, const Tensor& repeats, std::optional<int64_t> axis, Loc loc) {
          return recorded([&] { return tensord::repeat_interleave(x, repeats, axis, loc); });
        });
  m.def("boolean_index", [](const Tensor& x, const Tensor& mask, Loc loc) {
    return recorded([&] { return tensord::boolean_index(x, mask, loc); });
  });
}

}  // namespace tensord::python
