// Python bindings of fusion (issue 6): compile modes, explain, and functions kept on the
// daemon (tensord.function).
#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <source_location>
#include <vector>

#include "tensord/client.h"

namespace py = pybind11;

namespace tensord::python {

void bind_fusion(py::module_& m) {
  py::class_<ExplainedGroup>(m, "ExplainedGroup")
      .def_readonly("kernel", &ExplainedGroup::kernel)
      .def_readonly("ops", &ExplainedGroup::ops)
      .def_readonly("nodes", &ExplainedGroup::nodes);
  py::class_<FusionBoundary>(m, "FusionBoundary")
      .def_readonly("node", &FusionBoundary::node)
      .def_readonly("op", &FusionBoundary::op)
      .def_readonly("reason", &FusionBoundary::reason);
  py::class_<Explanation>(m, "Explanation")
      .def_readonly("mode", &Explanation::mode)
      .def_readonly("groups", &Explanation::groups)
      .def_readonly("boundaries", &Explanation::boundaries)
      .def_readonly("steps", &Explanation::steps)
      .def_readonly("plan_cached", &Explanation::plan_cached)
      .def_readonly("kernels_cached", &Explanation::kernels_cached)
      .def_readonly("captured", &Explanation::captured)
      .def_readonly("text", &Explanation::text)
      .def("__str__", [](const Explanation& e) { return e.text; });
  m.def("explain", [](const std::vector<Tensor>& tensors) { return explain(tensors); });
  // The call waits for the daemon without the GIL; the body (traced at a new signature) is
  // Python and takes it back.
  py::class_<Function>(m, "Function")
      .def("__call__",
           [](const Function& f, const std::vector<Tensor>& args, std::source_location loc) {
             py::gil_scoped_release unlocked;
             return f(args, loc);
           })
      .def("explain", [](const Function& f, const std::vector<Tensor>& args,
                         std::source_location loc) { return f.explain(args, loc); })
      .def_property_readonly("traces", &Function::traces);
  m.def("function", [](Session& s, py::function body) {
    return s.function([body = std::move(body)](const std::vector<Tensor>& args) {
      py::gil_scoped_acquire locked;
      return body(args).cast<std::vector<Tensor>>();
    });
  });
  m.def("set_compile_mode", [](Session& s, const std::string& mode) { s.set_compile_mode(mode); });
  m.def("kernel_cache_stats", [](Session& s) {
    SessionStats st = s.stats();
    py::dict d;
    d["memory_hits"] = st.kernel_memory_hits;
    d["disk_hits"] = st.kernel_disk_hits;
    d["misses"] = st.kernel_misses;
    d["compiles"] = st.kernel_compiles;
    d["compile_seconds"] = static_cast<double>(st.kernel_compile_ns) * 1e-9;
    d["compile_mode"] = st.compile_mode;
    py::list caches;
    for (const KernelCacheStats& k : st.kernel_caches) {
      py::dict c;
      c["target"] = k.target;
      c["memory_hits"] = k.memory_hits;
      c["disk_hits"] = k.disk_hits;
      c["misses"] = k.misses;
      c["compiles"] = k.compiles;
      c["compile_seconds"] = static_cast<double>(k.compile_ns) * 1e-9;
      caches.append(c);
    }
    d["caches"] = caches;
    return d;
  });
}

}  // namespace tensord::python
