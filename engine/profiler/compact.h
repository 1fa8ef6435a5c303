// The compact streaming form: what the daemon sends to a client's TraceSink, one chunk per
// message. A chunk is self-delimiting and appends to the strings of the chunks before it:
//
//   "TDT1"  varint session  varint dropped  varint first_string  varint n_strings
//           n_strings x (varint length, bytes)  varint n_records  n_records x record
//   record: kind byte, varint field mask, then each field present in the mask as a varint
//           (start and request as zigzag deltas from the previous record of the chunk)
//
// A step span takes about 12-20 bytes; the Chrome JSON of the same span takes about 200.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "engine/profiler/profiler.h"
#include "engine/profiler/record.h"

namespace tensord::profiler {

std::vector<uint8_t> encode_chunk(const Pending& pending, uint64_t session);
// A chunk's header, up to and including its record count: the records follow (the daemon's
// stream appends the profiler's already encoded records, Profiler::drain_encoded).
void put_chunk_header(std::vector<uint8_t>& out, uint64_t session, uint64_t dropped,
                      uint32_t first_string, const std::vector<std::string>& strings,
                      uint64_t n_records);

// A profile as the client holds it: the string table and every record received.
struct Trace {
  uint64_t session = 0;
  uint64_t dropped = 0;  // records the daemon dropped (the latest count it sent)
  std::vector<std::string> strings{""};
  std::vector<Record> records;

  const std::string& str(uint32_t id) const {
    return id < strings.size() ? strings[id] : strings[0];
  }
  // Decodes one chunk and appends it. Throws std::runtime_error on a malformed chunk or one out
  // of order (its strings must start where the table ends); the trace is then unchanged.
  void append_chunk(std::span<const uint8_t> chunk);
};

}  // namespace tensord::profiler
