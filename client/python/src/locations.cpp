#include "client/python/src/locations.h"

#include <bit>

namespace tensord::python {

static_assert(sizeof(std::source_location) == sizeof(void*),
              "this libstdc++ lays out std::source_location differently");

std::source_location LocationTable::get(const std::string& file, uint32_t line) {
  auto f = file_index_.find(file);
  if (f == file_index_.end()) {
    const std::string& stored = files_.emplace_back(file);
    f = file_index_.emplace(stored, stored.c_str()).first;
  }
  auto key = std::make_pair(f->second, line);
  auto it = index_.find(key);
  if (it != index_.end()) return it->second;
  const Record& record = records_.emplace_back(Record{f->second, "<python>", line, 0});
  auto loc = std::bit_cast<std::source_location>(&record);
  index_.emplace(key, loc);
  return loc;
}

}  // namespace tensord::python
