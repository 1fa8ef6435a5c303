#include "engine/profiler/compact.h"

#include <array>
#include <cstring>
#include <stdexcept>

namespace tensord::profiler {
namespace {

constexpr char kMagic[4] = {'T', 'D', 'T', '1'};
constexpr size_t kFields = 28;
constexpr uint64_t kMaxCount = uint64_t{1} << 28;  // sanity bound on counts in a chunk

uint64_t zigzag(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}
int64_t unzigzag(uint64_t v) {
  return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1);
}

void put(std::vector<uint8_t>& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<uint8_t>(v | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<uint8_t>(v));
}

class Reader {
 public:
  explicit Reader(std::span<const uint8_t> in) : in_(in) {}
  uint64_t varint() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos_ >= in_.size()) fail("truncated varint");
      uint8_t b = in_[pos_++];
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) return v;
    }
    fail("varint too long");
  }
  uint8_t byte() {
    if (pos_ >= in_.size()) fail("truncated chunk");
    return in_[pos_++];
  }
  std::string bytes(uint64_t n) {
    if (n > in_.size() - pos_) fail("string runs past the chunk");
    std::string s(reinterpret_cast<const char*>(in_.data() + pos_), n);
    pos_ += n;
    return s;
  }
  bool done() const { return pos_ == in_.size(); }
  [[noreturn]] static void fail(const std::string& why) {
    throw std::runtime_error("malformed trace chunk: " + why);
  }

 private:
  std::span<const uint8_t> in_;
  size_t pos_ = 0;
};

// The fields of a record in wire order, as unsigned words (deltas applied by the caller).
std::array<uint64_t, kFields> fields(const Record& r, int64_t prev_start, uint64_t prev_request) {
  return {r.stage,
          r.flags,
          r.thread,
          r.name,
          r.file,
          r.line,
          zigzag(static_cast<int64_t>(r.request - prev_request)),
          r.id,
          r.hash,
          zigzag(r.start_ns - prev_start),
          zigzag(r.dur_ns),
          r.bytes,
          r.value,
          r.free_bytes,
          r.largest_free,
          r.session,
          r.grid[0],
          r.grid[1],
          r.grid[2],
          r.block[0],
          r.block[1],
          r.block[2],
          r.registers,
          r.static_smem,
          r.dynamic_smem,
          r.occupancy_permille,
          r.address,
          r.stream};
}

uint32_t u32(uint64_t v) {
  if (v > UINT32_MAX) Reader::fail("field out of range");
  return static_cast<uint32_t>(v);
}

Record from_fields(uint8_t kind, const std::array<uint64_t, kFields>& f, int64_t prev_start,
                   uint64_t prev_request) {
  if (kind < static_cast<uint8_t>(RecordKind::Span) ||
      kind > static_cast<uint8_t>(RecordKind::FreeRequested)) {
    Reader::fail("unknown record kind " + std::to_string(kind));
  }
  if (f[0] > 255 || f[1] > 255) Reader::fail("field out of range");
  Record r;
  r.kind = static_cast<RecordKind>(kind);
  r.stage = static_cast<uint8_t>(f[0]);
  r.flags = static_cast<uint8_t>(f[1]);
  r.thread = u32(f[2]);
  r.name = u32(f[3]);
  r.file = u32(f[4]);
  r.line = u32(f[5]);
  r.request = prev_request + static_cast<uint64_t>(unzigzag(f[6]));
  r.id = f[7];
  r.hash = f[8];
  r.start_ns = prev_start + unzigzag(f[9]);
  r.dur_ns = unzigzag(f[10]);
  r.bytes = f[11];
  r.value = f[12];
  r.free_bytes = f[13];
  r.largest_free = f[14];
  r.session = f[15];
  for (int i = 0; i < 3; ++i) r.grid[i] = u32(f[16 + i]);
  for (int i = 0; i < 3; ++i) r.block[i] = u32(f[19 + i]);
  r.registers = u32(f[22]);
  r.static_smem = u32(f[23]);
  r.dynamic_smem = u32(f[24]);
  r.occupancy_permille = u32(f[25]);
  r.address = f[26];
  r.stream = f[27];
  return r;
}

}  // namespace

std::vector<uint8_t> encode_chunk(const Pending& pending, uint64_t session) {
  std::vector<uint8_t> out(kMagic, kMagic + 4);
  out.reserve(64 + pending.records.size() * 20);
  put(out, session);
  put(out, pending.dropped);
  put(out, pending.first_string);
  put(out, pending.strings.size());
  for (const std::string& s : pending.strings) {
    put(out, s.size());
    out.insert(out.end(), s.begin(), s.end());
  }
  put(out, pending.records.size());
  int64_t prev_start = 0;
  uint64_t prev_request = 0;
  for (const Record& r : pending.records) {
    out.push_back(static_cast<uint8_t>(r.kind));
    auto f = fields(r, prev_start, prev_request);
    uint64_t mask = 0;
    for (size_t i = 0; i < kFields; ++i) {
      if (f[i] != 0) mask |= uint64_t{1} << i;
    }
    put(out, mask);
    for (size_t i = 0; i < kFields; ++i) {
      if (f[i] != 0) put(out, f[i]);
    }
    prev_start = r.start_ns;
    prev_request = r.request;
  }
  return out;
}

void Trace::append_chunk(std::span<const uint8_t> chunk) {
  if (chunk.size() < 4 || std::memcmp(chunk.data(), kMagic, 4) != 0) {
    Reader::fail("bad magic");
  }
  Reader in(chunk.subspan(4));
  uint64_t chunk_session = in.varint();
  uint64_t chunk_dropped = in.varint();
  uint64_t first = in.varint();
  if (first != strings.size()) Reader::fail("strings out of order");
  uint64_t n_strings = in.varint();
  if (n_strings > kMaxCount) Reader::fail("too many strings");
  std::vector<std::string> new_strings;
  for (uint64_t i = 0; i < n_strings; ++i) new_strings.push_back(in.bytes(in.varint()));
  uint64_t n_records = in.varint();
  if (n_records > kMaxCount) Reader::fail("too many records");
  std::vector<Record> new_records;
  new_records.reserve(n_records);
  int64_t prev_start = 0;
  uint64_t prev_request = 0;
  for (uint64_t i = 0; i < n_records; ++i) {
    uint8_t kind = in.byte();
    uint64_t mask = in.varint();
    if (mask >> kFields) Reader::fail("unknown fields");
    std::array<uint64_t, kFields> f{};
    for (size_t k = 0; k < kFields; ++k) {
      if (mask & (uint64_t{1} << k)) f[k] = in.varint();
    }
    new_records.push_back(from_fields(kind, f, prev_start, prev_request));
    prev_start = new_records.back().start_ns;
    prev_request = new_records.back().request;
  }
  if (!in.done()) Reader::fail("trailing bytes");
  size_t table = strings.size() + new_strings.size();
  for (const Record& r : new_records) {
    if (r.name >= table || r.file >= table) Reader::fail("string id out of range");
  }
  session = chunk_session;
  dropped = chunk_dropped;
  for (auto& s : new_strings) strings.push_back(std::move(s));
  records.insert(records.end(), new_records.begin(), new_records.end());
}

}  // namespace tensord::profiler
