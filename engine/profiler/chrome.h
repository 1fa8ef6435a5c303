// Chrome Trace Event JSON (the format Perfetto and chrome://tracing load): complete events
// ("X") for spans, kernels and copies, flows ("s"/"f") from a request to its execution and from
// a step to the kernels it launched, counters ("C") for live memory by category, instant events
// ("i") for out-of-memory and fusion breaks, and metadata ("M") naming process and threads.
#pragma once

#include <string>
#include <string_view>

#include "engine/profiler/compact.h"

namespace tensord::profiler {

std::string chrome_trace_json(const Trace& trace);

// The name a Memcpy record's event has ("memcpy HtoD", ...; its direction is in `stage`).
std::string_view memcpy_name(const Record& r);

}  // namespace tensord::profiler
