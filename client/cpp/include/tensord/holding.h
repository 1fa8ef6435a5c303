// Bytes a session holds from one origin: SessionStats::holdings, Profile::held_before_by.
#pragma once

#include <cstdint>
#include <string>

namespace tensord {

struct Holding {
  std::string origin;  // "fit.py:12 (matmul)": the op and line that made them; "upload"
  uint64_t bytes = 0;
  uint64_t tensors = 0;
};

}  // namespace tensord
