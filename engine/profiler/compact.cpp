#include "engine/profiler/compact.h"

#include "engine/profiler/record_codec.h"

#include <cstring>
#include <stdexcept>

namespace tensord::profiler {
namespace {

constexpr char kMagic[4] = {'T', 'D', 'T', '1'};
constexpr size_t kFields = kCodecFields;
constexpr uint64_t kMaxCount = uint64_t{1} << 28;  // sanity bound on counts in a chunk

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

uint32_t u32(uint64_t v) {
  if (v > UINT32_MAX) Reader::fail("field out of range");
  return static_cast<uint32_t>(v);
}

// Checks untrusted wire fields before they become a record.
Record from_fields(uint8_t kind, const uint64_t (&f)[kFields], const DeltaBase& base) {
  if (kind < static_cast<uint8_t>(RecordKind::Span) ||
      kind > static_cast<uint8_t>(RecordKind::FreeRequested)) {
    Reader::fail("unknown record kind " + std::to_string(kind));
  }
  if (f[0] > 255 || f[1] > 255) Reader::fail("field out of range");
  for (size_t i : {2, 3, 4, 5, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25}) (void)u32(f[i]);
  return record_of_fields(kind, f, base);
}

}  // namespace

void put_chunk_header(std::vector<uint8_t>& out, uint64_t session, uint64_t dropped,
                      uint32_t first_string, const std::vector<std::string>& strings,
                      uint64_t n_records) {
  out.insert(out.end(), kMagic, kMagic + 4);
  put(out, session);
  put(out, dropped);
  put(out, first_string);
  put(out, strings.size());
  for (const std::string& s : strings) {
    put(out, s.size());
    out.insert(out.end(), s.begin(), s.end());
  }
  put(out, n_records);
}

std::vector<uint8_t> encode_chunk(const Pending& pending, uint64_t session) {
  std::vector<uint8_t> out;
  out.reserve(64 + pending.records.size() * 20);
  put_chunk_header(out, session, pending.dropped, pending.first_string, pending.strings,
                   pending.records.size());
  DeltaBase base;
  size_t used = out.size();
  for (const Record& r : pending.records) used = encode_record(out, used, r, base);
  out.resize(used);
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
  DeltaBase base;
  for (uint64_t i = 0; i < n_records; ++i) {
    uint8_t kind = in.byte();
    uint64_t mask = in.varint();
    if (mask >> kFields) Reader::fail("unknown fields");
    uint64_t f[kFields] = {};
    for (size_t k = 0; k < kFields; ++k) {
      if (mask & (uint64_t{1} << k)) f[k] = in.varint();
    }
    new_records.push_back(from_fields(kind, f, base));
    base = DeltaBase{new_records.back().start_ns, new_records.back().request};
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
