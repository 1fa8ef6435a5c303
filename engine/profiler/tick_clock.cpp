#include "engine/profiler/tick_clock.h"

#include <fstream>
#include <string>

namespace tensord::profiler {

bool TickClock::usable() {
#ifdef TENSORD_HAVE_TSC
  // The kernel chose the TSC to keep time only after checking that it is invariant and in step
  // across CPUs (a VM's too, when the hypervisor says so); then so can we.
  static const bool tsc = [] {
    std::ifstream in("/sys/devices/system/clocksource/clocksource0/current_clocksource");
    std::string source;
    return static_cast<bool>(in >> source) && source == "tsc";
  }();
  return tsc;
#else
  return false;
#endif
}

}  // namespace tensord::profiler
