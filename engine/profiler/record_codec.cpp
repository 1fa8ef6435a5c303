#include "engine/profiler/record_codec.h"

#include <algorithm>
#include <bit>

namespace tensord::profiler {
namespace {

uint64_t zigzag(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}
int64_t unzigzag(uint64_t v) {
  return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1);
}

uint8_t* put(uint8_t* p, uint64_t v) {
  while (v >= 0x80) {
    *p++ = static_cast<uint8_t>(v | 0x80);
    v >>= 7;
  }
  *p++ = static_cast<uint8_t>(v);
  return p;
}

uint64_t get(const uint8_t* in, size_t& pos) {
  uint64_t v = 0;
  for (int shift = 0;; shift += 7) {
    const uint8_t b = in[pos++];
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) return v;
  }
}

}  // namespace

void record_fields(const Record& r, const DeltaBase& base, uint64_t (&f)[kCodecFields]) {
  f[0] = r.stage;
  f[1] = r.flags;
  f[2] = r.thread;
  f[3] = r.name;
  f[4] = r.file;
  f[5] = r.line;
  f[6] = zigzag(static_cast<int64_t>(r.request - base.request));
  f[7] = r.id;
  f[8] = r.hash;
  f[9] = zigzag(r.start_ns - base.start_ns);
  f[10] = zigzag(r.dur_ns);
  f[11] = r.bytes;
  f[12] = r.value;
  f[13] = r.free_bytes;
  f[14] = r.largest_free;
  f[15] = r.session;
  for (int i = 0; i < 3; ++i) f[16 + i] = r.grid[i];
  for (int i = 0; i < 3; ++i) f[19 + i] = r.block[i];
  f[22] = r.registers;
  f[23] = r.static_smem;
  f[24] = r.dynamic_smem;
  f[25] = r.occupancy_permille;
  f[26] = r.address;
  f[27] = r.stream;
}

Record record_of_fields(uint8_t kind, const uint64_t (&f)[kCodecFields], const DeltaBase& base) {
  Record r;
  r.kind = static_cast<RecordKind>(kind);
  r.stage = static_cast<uint8_t>(f[0]);
  r.flags = static_cast<uint8_t>(f[1]);
  r.thread = static_cast<uint32_t>(f[2]);
  r.name = static_cast<uint32_t>(f[3]);
  r.file = static_cast<uint32_t>(f[4]);
  r.line = static_cast<uint32_t>(f[5]);
  r.request = base.request + static_cast<uint64_t>(unzigzag(f[6]));
  r.id = f[7];
  r.hash = f[8];
  r.start_ns = base.start_ns + unzigzag(f[9]);
  r.dur_ns = unzigzag(f[10]);
  r.bytes = f[11];
  r.value = f[12];
  r.free_bytes = f[13];
  r.largest_free = f[14];
  r.session = f[15];
  for (int i = 0; i < 3; ++i) r.grid[i] = static_cast<uint32_t>(f[16 + i]);
  for (int i = 0; i < 3; ++i) r.block[i] = static_cast<uint32_t>(f[19 + i]);
  r.registers = static_cast<uint32_t>(f[22]);
  r.static_smem = static_cast<uint32_t>(f[23]);
  r.dynamic_smem = static_cast<uint32_t>(f[24]);
  r.occupancy_permille = static_cast<uint32_t>(f[25]);
  r.address = f[26];
  r.stream = f[27];
  return r;
}

size_t encode_record(std::vector<uint8_t>& out, size_t used, const Record& r, DeltaBase& base) {
  if (out.size() - used < kMaxEncodedRecord) {
    out.resize(std::max(out.size() * 2, used + kMaxEncodedRecord * 64));
  }
  uint8_t* p = out.data() + used;
  *p++ = static_cast<uint8_t>(r.kind);
  uint64_t f[kCodecFields];
  record_fields(r, base, f);
  uint64_t mask = 0;
  for (size_t i = 0; i < kCodecFields; ++i) mask |= uint64_t{f[i] != 0} << i;
  p = put(p, mask);
  // Only the fields present: a step span has 8 of 28.
  for (uint64_t m = mask; m != 0; m &= m - 1) p = put(p, f[std::countr_zero(m)]);
  base = DeltaBase{r.start_ns, r.request};
  return static_cast<size_t>(p - out.data());
}

Record decode_trusted(const uint8_t* in, size_t& pos, DeltaBase& base) {
  const uint8_t kind = in[pos++];
  const uint64_t mask = get(in, pos);
  uint64_t f[kCodecFields] = {};
  for (uint64_t m = mask; m != 0; m &= m - 1) f[std::countr_zero(m)] = get(in, pos);
  Record r = record_of_fields(kind, f, base);
  base = DeltaBase{r.start_ns, r.request};
  return r;
}

}  // namespace tensord::profiler
