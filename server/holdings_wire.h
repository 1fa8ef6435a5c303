// A session's largest holdings on the wire: SessionStats.holdings and Session.profile's
// heldBeforeBy carry the same list (protocol 1.7, 1.8).
#pragma once

#include <vector>

#include "server/accounting.h"
#include "tensord.capnp.h"

namespace tensord::server {

// `out` from init<List>(holdings.size()).
inline void write_holdings(::capnp::List<::Holding>::Builder out,
                           const std::vector<Holding>& holdings) {
  for (unsigned i = 0; i < out.size() && i < holdings.size(); ++i) {
    out[i].setOrigin(holdings[i].origin);
    out[i].setBytes(holdings[i].bytes);
    out[i].setTensors(holdings[i].tensors);
  }
}

}  // namespace tensord::server
