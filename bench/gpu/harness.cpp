#include "bench/gpu/harness.h"

#include <cstdio>
#include <fstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "bench/common/figure.h"
#include "tensord/host_buffer.h"

namespace tensord::bench {

TorchPeers TorchPeers::read(const std::string& path) {
  TorchPeers peers;
  if (path.empty()) return peers;
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read --torch-peers " + path);
  std::string line;
  while (std::getline(in, line)) {
    auto j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!j.is_object() || !j.contains("bench") || !j.contains("impl") || !j.contains("value") ||
        !j["value"].is_number()) {
      continue;  // a note or an error line of the peer script
    }
    peers.by_bench[j["bench"].get<std::string>()].emplace_back(j["impl"].get<std::string>(),
                                                               j["value"].get<double>());
  }
  return peers;
}

std::optional<double> TorchPeers::find(const std::string& bench, const std::string& impl) const {
  const auto it = by_bench.find(bench);
  if (it == by_bench.end()) return std::nullopt;
  for (const auto& [name, value] : it->second) {
    if (name == impl) return value;
  }
  return std::nullopt;
}

void GpuBench::report(const std::string& name, double value, const std::string& unit,
                      const std::vector<std::pair<std::string, double>>& extra) {
  auto all = extra;
  if (auto it = peers_.by_bench.find(name); it != peers_.by_bench.end()) {
    all.insert(all.end(), it->second.begin(), it->second.end());
  }
  if (all.empty()) all.emplace_back("none", 0.0);
  for (const auto& [peer, peer_value] : all) print_figure(name, value, unit, peer, peer_value);
}

void GpuBench::report_against(const std::string& name, double value, const std::string& unit,
                              const std::string& peer_bench, const std::string& impl) {
  const std::optional<double> peer = peers_.find(peer_bench, impl);
  print_figure(name, value, unit, peer ? impl : "none", peer.value_or(0.0));
}

void GpuBench::workload(const std::string& name, const std::function<void()>& body) {
  try {
    body();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s failed: %s\n", program_.c_str(), name.c_str(), e.what());
    std::printf("{\"bench\":\"%s\",\"error\":%s}\n", name.c_str(),
                nlohmann::json(std::string(e.what())).dump().c_str());
    std::fflush(stdout);
    ++failures_;
  }
}

void wait_on_device(const Tensor& y) {
  Tensor e = y.reshape({-1}).slice(0, 0, 1);
  if (e.dtype() != ir::DType::Float32) e = e.astype(ir::DType::Float32);
  (void)e.to_vector<float>();
}

double GpuBench::seconds(const std::function<Tensor()>& make) {
  return median_seconds(warmup_, repeats_, [&] {
    Tensor y = make();
    s_.sync({y});
    wait_on_device(y);
  });
}

double GpuBench::seconds_per_call(int calls, const std::function<Tensor()>& make) {
  const double t = median_seconds(warmup_, repeats_, [&] {
    Tensor y;
    for (int i = 0; i < calls; ++i) {
      y = make();
      s_.sync({y});
    }
    wait_on_device(y);
  });
  return t / calls;
}

double GpuBench::seconds_per_function_call(int calls, const std::function<Tensor()>& call) {
  const double t = median_seconds(warmup_, repeats_, [&] {
    Tensor y;
    for (int i = 0; i < calls; ++i) y = call();
    wait_on_device(y);
  });
  return t / calls;
}

void GpuBench::print_stage_times(const std::string& figure, int calls,
                                 const std::function<Tensor()>& make) {
  tensord::Profile prof = s_.profile();
  for (int i = 0; i < calls; ++i) s_.sync({make()});
  prof.stop();
  int shown = 0;
  for (const tensord::profiler::KeyAverage& k : prof.key_averages()) {
    if (shown++ == 12) break;
    std::fprintf(stderr, "%s: %s: %-28s %6llu calls %9.1f us/call (self %.1f)\n", program_.c_str(),
                 figure.c_str(), k.key.c_str(), static_cast<unsigned long long>(k.calls),
                 k.total_ns / 1e3 / calls, k.self_ns / 1e3 / calls);
  }
}

Tensor GpuBench::input(const ir::Shape& shape, uint32_t seed) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  auto buffer = s_.host_buffer(static_cast<size_t>(n) * sizeof(float));
  auto* p = reinterpret_cast<float*>(buffer->data());
  uint32_t state = seed * 2654435761u + 1;
  for (int64_t i = 0; i < n; ++i) {
    state = state * 1664525u + 1013904223u;
    p[i] = static_cast<float>(state >> 8) * (4.0f / 16777216.0f) - 2.0f;
  }
  Tensor t = s_.from_buffer(ir::DType::Float32, shape, std::move(buffer));
  s_.sync({t});
  return t;
}

}  // namespace tensord::bench
