// A cheap clock for timestamps taken in a burst on one thread (the executor's steps): the CPU's
// time-stamp counter, read in ~14 ns on the 2-core VM where steady_clock takes ~35. Ticks are
// not nanoseconds: the reader maps them onto steady_clock between two readings of it that
// bracket the ticks (map_ticks), which is what the kernel's vDSO clock does with the same
// counter, so the times keep steady_clock's meaning and stay inside the bracket.
//
// Used only where the kernel itself keeps time with the TSC (its clocksource is "tsc": the
// counter is invariant and synchronised across CPUs, so a thread that migrates reads one
// clock). Elsewhere (other clocksources, other architectures) usable() is false and callers
// read steady_clock per timestamp, as before.
#pragma once

#include <cstdint>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define TENSORD_HAVE_TSC 1
#endif

namespace tensord::profiler {

struct TickClock {
  // Decided once per process (reads /sys/devices/system/clocksource/clocksource0/).
  static bool usable();
  static uint64_t now() {
#ifdef TENSORD_HAVE_TSC
    return __rdtsc();
#else
    return 0;
#endif
  }
  // Ticks that certainly span more than a few milliseconds (2^24: 17 ms at 1 GHz, 3.4 ms at
  // 5 GHz): a burst older than this is flushed, so records reach the stream while long steps run.
  static constexpr uint64_t kFlushTicks = uint64_t{1} << 24;
};

// The steady_clock time of tick `t`, given the bracket (t0 at ns0) .. (t1 at ns1), t0 <= t <= t1
// expected; clamped to [ns0, ns1] (a tick read a few ns outside the bracket maps to its edge).
inline int64_t map_ticks(uint64_t t, uint64_t t0, int64_t ns0, uint64_t t1, int64_t ns1) {
  if (t <= t0 || t1 <= t0 || ns1 <= ns0) return ns0;
  if (t >= t1) return ns1;
  // In double: exact enough (a bracket of hours still maps to the nanosecond) and no 128-bit type.
  const double share = static_cast<double>(t - t0) / static_cast<double>(t1 - t0);
  const auto ns = ns0 + static_cast<int64_t>(static_cast<double>(ns1 - ns0) * share);
  return ns < ns1 ? ns : ns1;
}

}  // namespace tensord::profiler
