// What a profiler holds, drained and decoded into one Trace, for the tests that read it back.
#pragma once

#include "engine/profiler/compact.h"
#include "engine/profiler/profiler.h"

namespace tensord::test {

inline profiler::Trace drain(profiler::Profiler& p) {
  profiler::Trace t;
  profiler::Pending pending;
  while (p.drain(pending, 1 << 20)) t.append_chunk(profiler::encode_chunk(pending, p.session()));
  return t;
}

}  // namespace tensord::test
