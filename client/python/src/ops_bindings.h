// Bindings of issue 4's ops (ops_bindings.cpp), called once from module.cpp.
#pragma once

#include <pybind11/pybind11.h>

namespace tensord::python {

void bind_ops(pybind11::module_& m);

}  // namespace tensord::python
