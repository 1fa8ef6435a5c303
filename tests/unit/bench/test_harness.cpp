#include <catch2/catch.hpp>

#include <unistd.h>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "bench/gpu/harness.h"

using tensord::bench::TorchPeers;

namespace {

std::string write_lines(const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("tensord-harness-test-" + std::to_string(getpid()) + ".jsonl");
  std::ofstream(path) << text;
  return path.string();
}

}  // namespace

TEST_CASE("TorchPeers reads the value lines of a peer script and skips the rest") {
  const std::string path = write_lines(
      R"({"bench": "gpu_chain8_256M", "impl": "torch_eager", "value": 2500.5, "unit": "GB/s"})"
      "\n"
      R"({"bench": "gpu_chain8_256M", "impl": "torch_compile", "value": 3000, "unit": "GB/s"})"
      "\n"
      R"({"bench": "mlp_step_small", "impl": "torch_eager", "error": "RuntimeError: x"})"
      "\n"
      R"({"bench": "graph_replay_200", "impl": "torch_eager", "value": "fast"})"
      "\n"
      "torch_gpu_peer.py: a note, not JSON\n"
      R"({"bench": "graph_replay_200", "impl": "torch_cuda_graph", "value": 0.8})"
      "\n");
  const TorchPeers peers = TorchPeers::read(path);
  std::filesystem::remove(path);

  REQUIRE(peers.by_bench.size() == 2);
  const auto& chain = peers.by_bench.at("gpu_chain8_256M");
  REQUIRE(chain.size() == 2);
  CHECK(chain[0].first == "torch_eager");  // in the order they came
  CHECK(chain[1].first == "torch_compile");
  CHECK(peers.find("gpu_chain8_256M", "torch_compile") == Approx(3000.0));
  CHECK(peers.find("graph_replay_200", "torch_cuda_graph") == Approx(0.8));
  CHECK_FALSE(peers.find("graph_replay_200", "torch_eager"));  // its value was not a number
  CHECK_FALSE(peers.find("mlp_step_small", "torch_eager"));    // an error line
  CHECK_FALSE(peers.find("gpu_softmax_4096", "torch_eager"));
}

TEST_CASE("TorchPeers: no path is no peers, an unreadable file is an error") {
  CHECK(TorchPeers::read("").by_bench.empty());
  CHECK_THROWS_WITH(TorchPeers::read("/nonexistent/peers.jsonl"),
                    Catch::Contains("cannot read --torch-peers /nonexistent/peers.jsonl"));
}
