// The transport's own ceiling, measured in the same run as the transfers: bytes pushed
// through a plain TCP loopback socket, nothing else.
#pragma once

#include <cstddef>

namespace tensord::bench {

// Median GB/s of moving `bytes` from a touched buffer through one TCP loopback connection
// into another touched buffer (a sender and a receiver thread, 1 MiB per send/recv call,
// the best call size measured on our 2-core VMs), over `repeats` connections.
double tcp_loopback_gbps(size_t bytes, int repeats);

}  // namespace tensord::bench
