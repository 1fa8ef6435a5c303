// The peers bench/rpc compares the daemon with, measured in the same run.
#pragma once

namespace tensord::bench {

// Median microseconds of a round trip of a `bytes`-byte message over a unix stream socket
// between this thread and an echo thread: the floor any request/reply protocol pays.
double unix_pingpong_median_us(int iterations, int bytes);

// GFLOP/s of an n x n x n float32 matmul through oneDNN called directly (primitive created
// once, executed `repeats` times; median), with oneDNN's default thread count.
double onednn_matmul_gflops(int n, int repeats);

}  // namespace tensord::bench
