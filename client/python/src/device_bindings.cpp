// Python bindings of the session's device settings and figures: torch-style
// set_float32_matmul_precision and memory_stats (tensord/_device.py is the public layer).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>

#include "tensord/client.h"

namespace py = pybind11;

namespace tensord::python {
namespace {

// "cuda:0" for a GPU, "cpu" for the CPU: the names torch.device uses.
std::string device_name(const DeviceInfo& d) {
  return d.kind == "cpu" ? d.kind : d.kind + ":" + std::to_string(d.index);
}

// A device's figures under PyTorch's key names; the CPU's host block cache under
// "host_cache.*" (PyTorch has no such figure: no key of its is made up for the CPU).
py::dict stats_dict(const DeviceMemoryStats& s) {
  py::dict d;
  for (const auto& [key, value] : torch_memory_stats(s)) d[py::str(key)] = value;
  if (s.host_cache) {
    d["host_cache.cached_bytes"] = s.host_cache->cached_bytes;
    d["host_cache.hits"] = s.host_cache->hits;
    d["host_cache.misses"] = s.host_cache->misses;
    d["host_cache.evictions"] = s.host_cache->evictions;
  }
  return d;
}

}  // namespace

void bind_device_settings(py::module_& m) {
  m.def("set_float32_matmul_precision", [](Session& s, const std::string& precision) {
    s.set_float32_matmul_precision(precision);
  });
  m.def("float32_matmul_precision", [](Session& s) { return s.float32_matmul_precision(); });
  // One entry per device of the daemon: {"device", "name", "session_device", "stats"}.
  m.def("memory_stats", [](Session& s) {
    py::list out;
    for (const DeviceMemoryStats& d : s.memory_stats()) {
      py::dict entry;
      entry["device"] = device_name(d.device);
      entry["name"] = d.device.name;
      entry["session_device"] = d.session_device;
      entry["stats"] = stats_dict(d);
      out.append(entry);
    }
    return out;
  });
}

}  // namespace tensord::python
