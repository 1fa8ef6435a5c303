// Bindings of issue 4's neural-network ops (nn_bindings.cpp), called once from module.cpp.
#pragma once

#include <pybind11/pybind11.h>

namespace tensord::python {

void bind_nn(pybind11::module_& m);

}  // namespace tensord::python
