#include "server/token.h"

namespace tensord::server {

bool same_token(std::string_view expected, std::string_view given) {
  unsigned char diff = expected.size() == given.size() ? 0 : 1;
  for (size_t i = 0; i < expected.size(); ++i) {
    diff |= static_cast<unsigned char>(expected[i] ^ (i < given.size() ? given[i] : ~expected[i]));
  }
  return diff == 0;
}

}  // namespace tensord::server
