// The profiler for Python: Session.profile's RAII object and what it computes (Chrome trace,
// key averages, memory timeline, recommendations), as plain Python values. The Python-facing
// API (td.profile) is client/python/tensord/profiler.py.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <string>

#include "engine/profiler/record.h"
#include "engine/profiler/summary.h"
#include "tensord/client.h"

namespace py = pybind11;

namespace tensord::python {

void bind_profile(py::module_& m) {
  py::class_<Profile>(m, "Profile")
      .def("stop", &Profile::stop)
      .def_property_readonly("running", &Profile::running)
      .def("dropped", &Profile::dropped)
      .def("record_count", [](Profile& p) { return p.trace().records.size(); })
      .def("chrome_trace_json", &Profile::chrome_trace_json)
      .def("export_chrome_trace", &Profile::export_chrome_trace)
      .def("export_compact", &Profile::export_compact)
      .def("key_averages",
           [](Profile& p) {
             py::list rows;
             for (const auto& r : p.key_averages()) {
               py::dict d;
               d["key"] = r.key;
               d["calls"] = r.calls;
               d["self_us"] = static_cast<double>(r.self_ns) / 1e3;
               d["total_us"] = static_cast<double>(r.total_ns) / 1e3;
               d["alloc_bytes"] = r.alloc_bytes;
               d["source"] = r.source;
               rows.append(d);
             }
             return rows;
           })
      .def(
          "memory_timeline",
          [](Profile& p, bool reserved_by_category) {
            constexpr size_t kCategories = static_cast<size_t>(profiler::MemoryCategory::kCount);
            auto by_category = [](const int64_t(&bytes)[kCategories], py::dict d) {
              for (size_t c = 0; c < kCategories; ++c) {
                d[py::str(std::string(
                    profiler::category_name(static_cast<profiler::MemoryCategory>(c))))] = bytes[c];
              }
              return d;
            };
            // As the dashboard stacks them: the bytes held when the profile began first, the
            // blocks allocated since by category.
            const std::vector<profiler::MemoryPoint> timeline = p.memory_timeline();
            const profiler::MemoryStacker stacker(timeline, p.held_before());
            py::list points;
            for (const auto& pt : timeline) {
              const profiler::MemoryStack stack = stacker.at(pt);
              py::dict allocated;
              allocated["held_before_profile"] = stack.held_before;
              by_category(stack.by_category, allocated);
              const double t_us = static_cast<double>(pt.t_ns) / 1e3;
              if (reserved_by_category) {
                points.append(py::make_tuple(t_us, allocated, pt.reserved_bytes,
                                             by_category(pt.reserved_by_category, py::dict())));
              } else {
                points.append(py::make_tuple(t_us, allocated, pt.reserved_bytes));
              }
            }
            return points;
          },
          py::arg("reserved_by_category") = false)
      .def("held_before",
           [](Profile& p) {
             py::list by;
             for (const Holding& h : p.held_before_by()) {
               py::dict d;
               d["origin"] = h.origin;
               d["bytes"] = h.bytes;
               d["tensors"] = h.tensors;
               by.append(d);
             }
             py::dict out;
             out["bytes"] = p.held_before();
             out["holdings"] = by;
             return out;
           })
      .def("memory_summary",
           [](Profile& p) {
             py::list rows;
             for (const auto& c : p.memory_summary()) {
               py::dict d;
               d["category"] = std::string(profiler::category_name(c.category));
               d["allocated"] = c.allocated;
               d["peak_allocated"] = c.peak_allocated;
               d["reserved"] = c.reserved;
               d["peak_reserved"] = c.peak_reserved;
               d["allocs"] = c.allocs;
               d["pending_frees"] = c.pending_frees;
               rows.append(d);
             }
             return rows;
           })
      .def("recommendations",
           [](Profile& p) {
             py::list out;
             for (const auto& r : p.recommendations()) {
               py::dict d;
               d["rule"] = r.rule;
               d["message"] = r.message;
               d["evidence"] = r.evidence;
               out.append(d);
             }
             return out;
           })
      .def("memory_snapshot", [](Profile& p) {
        // torch.cuda.memory._snapshot()'s shape: segments with their blocks.
        profiler::MemorySnapshot snap = p.memory_segments();
        auto block_dict = [](const profiler::LiveBlock& b) {
          py::dict d;
          d["address"] = b.address;
          d["size"] = b.bytes;
          d["state"] = std::string(profiler::block_state(b));
          d["stream"] = b.stream;
          d["device_owned"] = b.device_owned;
          d["category"] = std::string(profiler::category_name(b.category));
          d["op"] = b.op;
          d["source"] = b.file.empty() ? std::string() : b.file + ":" + std::to_string(b.line);
          d["request"] = b.request;
          return d;
        };
        py::list segments;
        for (const auto& s : snap.segments) {
          py::dict d;
          d["address"] = s.segment.address;
          d["total_size"] = s.segment.bytes;
          d["stream"] = s.segment.stream;
          d["category"] = std::string(profiler::category_name(s.segment.category));
          d["allocated_size"] = s.recorded_bytes;
          py::list blocks;
          for (const auto& b : s.blocks) blocks.append(block_dict(b));
          d["blocks"] = blocks;
          segments.append(d);
        }
        py::list outside;
        for (const auto& b : snap.outside) outside.append(block_dict(b));
        py::dict out;
        out["segments"] = segments;
        out["outside"] = outside;
        return out;
      });

  m.def(
      "profile",
      [](Session& s, bool trace, bool memory, uint32_t buffer_records) {
        return s.profile({trace, memory, buffer_records, /*free_requested=*/true});
      },
      py::arg("session"), py::arg("trace") = true, py::arg("memory") = false,
      py::arg("buffer_records") = 16384);
}

}  // namespace tensord::python
