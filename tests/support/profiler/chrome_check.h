// Our own checker of the Chrome Trace Event format (the rules Perfetto and chrome://tracing
// apply to the JSON object form): used by the unit and integration tests on every export.
#pragma once

#include <string>
#include <vector>

namespace tensord::test {

struct ChromeCheck {
  std::vector<std::string> errors;  // empty: the trace follows the rules
  size_t complete = 0, flows = 0, counters = 0, metadata = 0, instants = 0;
};

// Rules: a JSON object with a "traceEvents" array; each event has a known "ph"; X events have a
// name, numeric ts and dur >= 0, pid and tid; X events of one thread nest (no partial overlap);
// every flow end ("f", binding "e") has a flow start ("s") with the same id, name and category
// at or before it; C events have numeric args; M events are process_name/thread_name with
// args.name; i events have a scope g, p or t.
ChromeCheck check_chrome_trace(const std::string& json);

}  // namespace tensord::test
