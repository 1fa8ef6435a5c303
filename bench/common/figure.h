// Every benchmark prints one JSON line per figure, compared with a peer measured in the same run:
//   {"bench":"roundtrip_1op","value":41.2,"unit":"us","peer":"unix_pingpong","peer_value":30.1,"ratio":1.37}
// ratio = value / peer_value. Machines are noisy: figures are medians over repeats.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

namespace tensord::bench {

inline void print_figure(const std::string& bench, double value, const std::string& unit,
                         const std::string& peer, double peer_value) {
  std::printf(
      "{\"bench\":\"%s\",\"value\":%.6g,\"unit\":\"%s\",\"peer\":\"%s\",\"peer_value\":%.6g,"
      "\"ratio\":%.4g}\n",
      bench.c_str(), value, unit.c_str(), peer.c_str(), peer_value,
      peer_value != 0 ? value / peer_value : 0.0);
  std::fflush(stdout);
}

inline double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

// Median seconds of `repeats` calls of `fn`, after `warmup` untimed calls.
template <typename Fn>
double median_seconds(int warmup, int repeats, Fn&& fn) {
  for (int i = 0; i < warmup; ++i) fn();
  std::vector<double> times;
  times.reserve(repeats);
  for (int i = 0; i < repeats; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    fn();
    auto t1 = std::chrono::steady_clock::now();
    times.push_back(std::chrono::duration<double>(t1 - t0).count());
  }
  return median(std::move(times));
}

}  // namespace tensord::bench
