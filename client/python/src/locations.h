// Source locations for ops recorded from Python.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <source_location>
#include <string>
#include <utility>

namespace tensord::python {

// The C++ client records a std::source_location per node, which standard C++ can only make
// for C++ call sites. Python call sites are made here from libstdc++'s layout of
// source_location (one pointer to {file, function, line, column}); a static_assert and the
// file:line checks of tests/python/test_errors.py guard it. The records are interned and never
// freed, because recorded nodes keep raw pointers to them: one entry per distinct recording line.
class LocationTable {
 public:
  std::source_location get(const std::string& file, uint32_t line);

 private:
  struct Record {  // libstdc++'s std::source_location::__impl
    const char* file_name;
    const char* function_name;
    unsigned line;
    unsigned column;
  };
  std::deque<std::string> files_;  // stable addresses
  std::map<std::string, const char*, std::less<>> file_index_;
  std::deque<Record> records_;
  std::map<std::pair<const char*, uint32_t>, std::source_location> index_;
};

}  // namespace tensord::python
