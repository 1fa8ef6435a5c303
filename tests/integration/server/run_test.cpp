// Valid requests: runs with inline and uploaded inputs, fetches, reads, info and stats.
#include <catch2/catch.hpp>

#include "tests/integration/server/raw_client.h"
#include "tests/support/daemon/daemon_process.h"

namespace tensord::test {
namespace {

DaemonOptions with_token() {
  return DaemonOptions::with_args({"--token", kToken, "--threads", "2"});
}

TEST_CASE("hello returns a session and describes the daemon") {
  DaemonProcess daemon(with_token());
  RawClient client(daemon.address());
  client.hello("describe");
  auto info = client.last_server_info();
  REQUIRE(info.getVersion().getMajor() == ::PROTOCOL_MAJOR);
  REQUIRE(std::string(info.getDaemonVersion().cStr()) == "0.1.0");
  REQUIRE(info.getDevices().size() == 1);
  REQUIRE(std::string(info.getDevices()[0].getKind().cStr()) == "cpu");
  REQUIRE(info.getDevices()[0].getThreads() == 2);
  REQUIRE(info.getMaxChunkBytes() == ::MAX_CHUNK_BYTES);
  REQUIRE(info.getMaxTensorBytes() > 0);
}

TEST_CASE("a run returns correct values inline and as tensors") {
  DaemonProcess daemon(with_token());
  RawClient client(daemon.address());
  auto session = client.hello();

  // y = relu(a @ w + 1).sum(axis 1), a = [[1 2 3] [4 5 6]], w = 0.5 everywhere (3x4).
  GraphSpec g;
  g.inputs.push_back(floats({1, 2, 3, -4, -5, -6}, {2, 3}));
  g.nodes = {input_node(0, "float32", {2, 3}),
             full_node({3, 4}, 0.5),
             {"matmul", {{0, 0}, {1, 0}}, {}},
             full_node({}, 1.0),
             {"add", {{2, 0}, {3, 0}}, {}},
             {"relu", {{4, 0}}, {}},
             {"sum", {{5, 0}}, {{"axes", std::vector<int64_t>{1}}}}};
  g.outputs = {{6, 0, true}, {2, 0, false}};
  auto response = run_request(session, g).send().wait(client.ws());
  auto results = response.getResults();
  REQUIRE(results.size() == 2);

  auto y = results[0];
  REQUIRE(std::string(y.getDtype().cStr()) == "float32");
  REQUIRE(y.getShape().size() == 1);
  REQUIRE(y.getShape()[0] == 2);
  REQUIRE(y.getFetched());
  REQUIRE(values_of<float>(y.getData()) == std::vector<float>{4 * 4.0f, 0.0f});

  // The matmul, not fetched: bytes only on request, through Tensor.read.
  auto mm = results[1];
  REQUIRE_FALSE(mm.getFetched());
  REQUIRE(mm.getData().size() == 0);
  auto info = mm.getTensor().infoRequest().send().wait(client.ws());
  REQUIRE(std::string(info.getDtype().cStr()) == "float32");
  REQUIRE(info.getShape().size() == 2);
  REQUIRE(info.getShape()[1] == 4);
  auto read = mm.getTensor().readRequest();
  read.setOffset(4 * sizeof(float));
  read.setLength(4 * sizeof(float));
  auto bytes = read.send().wait(client.ws());
  REQUIRE(values_of<float>(bytes.getData()) == std::vector<float>{-7.5f, -7.5f, -7.5f, -7.5f});

  capnp::MallocMessageBuilder keep;
  auto s = stats(session, client.ws(), keep);
  REQUIRE(s.getRuns() == 1);
  REQUIRE(s.getLiveTensors() == 2);
  REQUIRE(s.getLiveBytes() == 2 * 4 + 8 * 4);
}

TEST_CASE("result tensors and uploads feed later runs") {
  DaemonProcess daemon(with_token());
  RawClient client(daemon.address());
  auto session = client.hello();

  // An uploaded int32 tensor, written in small chunks.
  std::vector<int32_t> values(1000);
  for (int i = 0; i < 1000; ++i) values[i] = i - 500;
  auto x = upload(session, client.ws(), "int32", {10, 100}, bytes_of(values), 1000);

  GraphSpec first;
  first.inputs.push_back(x);
  first.nodes = {input_node(0, "int32", {10, 100}), {"abs", {{0, 0}}, {}}};
  first.outputs = {{1, 0, false}};
  auto r1 = run_request(session, first).send().wait(client.ws());
  ::Tensor::Client absolute = r1.getResults()[0].getTensor();

  GraphSpec second;
  second.inputs.push_back(absolute);
  second.inputs.push_back(x);
  second.nodes = {input_node(0, "int32", {10, 100}),
                  input_node(1, "int32", {10, 100}),
                  {"add", {{0, 0}, {1, 0}}, {}},
                  {"sum", {{2, 0}}, {}}};
  second.outputs = {{3}};
  auto r2 = run_request(session, second).send().wait(client.ws());
  // sum(|v| + v) = 2 * sum of the positive values 1..499.
  REQUIRE(std::string(r2.getResults()[0].getDtype().cStr()) == "int64");
  REQUIRE(values_of<int64_t>(r2.getResults()[0].getData()) == std::vector<int64_t>{2 * 124750});
}

TEST_CASE("outputs larger than a chunk are not fetched inline but read in chunks") {
  DaemonProcess daemon(with_token());
  RawClient client(daemon.address());
  auto session = client.hello();
  const int64_t n = ::MAX_CHUNK_BYTES / 8 + 1000;  // float64: just over one chunk
  GraphSpec g;
  g.nodes = {{"arange",
              {},
              {{"start", int64_t{0}},
               {"stop", n},
               {"step", int64_t{1}},
               {"dtype", DTypeName{"float64"}}}}};
  g.outputs = {{0, 0, true}};
  auto response = run_request(session, g).send().wait(client.ws());
  auto result = response.getResults()[0];
  REQUIRE_FALSE(result.getFetched());
  REQUIRE(result.getData().size() == 0);

  std::vector<double> all;
  const uint64_t total = static_cast<uint64_t>(n) * 8;
  for (uint64_t offset = 0; offset < total; offset += ::MAX_CHUNK_BYTES) {
    auto read = result.getTensor().readRequest();
    read.setOffset(offset);
    read.setLength(std::min<uint64_t>(::MAX_CHUNK_BYTES, total - offset));
    auto chunk = values_of<double>(read.send().wait(client.ws()).getData());
    all.insert(all.end(), chunk.begin(), chunk.end());
  }
  REQUIRE(all.size() == static_cast<size_t>(n));
  int64_t wrong = 0;
  for (int64_t i = 0; i < n; ++i) wrong += all[i] != static_cast<double>(i);
  REQUIRE(wrong == 0);
}

TEST_CASE("one reply carries a bounded amount of fetched bytes") {
  DaemonProcess daemon(with_token());
  RawClient client(daemon.address());
  auto session = client.hello();
  // 12 fetched outputs of one full chunk each: 48 MiB would be too close to the 64 MiB limit.
  // (Each Data field is read once: readers count every traversal against that limit.)
  const int64_t n = ::MAX_CHUNK_BYTES / 4;
  GraphSpec g;
  for (int i = 0; i < 12; ++i) {
    g.nodes.push_back(full_node({n}, static_cast<double>(i)));
    g.outputs.push_back({static_cast<uint32_t>(i)});
  }
  auto response = run_request(session, g).send().wait(client.ws());
  auto results = response.getResults();
  REQUIRE(results.size() == 12);
  uint64_t inline_bytes = 0;
  int fetched = 0;
  for (int i = 0; i < 12; ++i) {
    auto r = results[i];
    if (r.getFetched()) {
      ++fetched;
      auto v = values_of<float>(r.getData());
      inline_bytes += v.size() * sizeof(float);
      REQUIRE(v.size() == static_cast<size_t>(n));
      REQUIRE(v.front() == static_cast<float>(i));
      REQUIRE(v.back() == static_cast<float>(i));
    } else {
      REQUIRE_FALSE(r.hasData());
      auto read = r.getTensor().readRequest();
      read.setOffset((n - 1) * 4);
      read.setLength(4);
      auto last = values_of<float>(read.send().wait(client.ws()).getData());
      REQUIRE(last == std::vector<float>{static_cast<float>(i)});
    }
  }
  REQUIRE(fetched >= 1);
  REQUIRE(fetched < 12);
  REQUIRE(inline_bytes <= 4 * ::MAX_CHUNK_BYTES);
}

TEST_CASE("a small read of a CPU tensor does not wait for the session's queued runs") {
  DaemonProcess daemon(with_token());
  RawClient client(daemon.address());
  auto session = client.hello();
  auto small = upload(session, client.ws(), "float32", {4}, bytes_of<float>({1, 2, 3, 4}));
  // A run that keeps the worker busy for a while: a chain of 24 matmuls of 1024 x 1024.
  GraphSpec slow;
  slow.nodes.push_back(full_node({1024, 1024}, 0.001));
  for (uint32_t i = 0; i < 24; ++i) slow.nodes.push_back({"matmul", {{i, 0}, {0, 0}}, {}});
  slow.outputs = {{24, 0, false}};
  auto running = run_request(session, slow).send();
  auto read = small.readRequest();
  read.setOffset(4);
  read.setLength(8);
  auto bytes = read.send().wait(client.ws());
  REQUIRE(values_of<float>(bytes.getData()) == std::vector<float>{2, 3});
  // Answered from host memory on the event loop, while the worker still runs the matmuls.
  CHECK_FALSE(running.poll(client.ws()));
  running.wait(client.ws());
}

TEST_CASE("zero-size tensors upload, run and fetch") {
  DaemonProcess daemon(with_token());
  RawClient client(daemon.address());
  auto session = client.hello();
  auto empty = upload(session, client.ws(), "float32", {0, 3}, {});
  GraphSpec g;
  g.inputs.push_back(empty);
  g.nodes = {input_node(0, "float32", {0, 3}),
             {"sum", {{0, 0}}, {{"axes", std::vector<int64_t>{0}}}}};
  g.outputs = {{0}, {1}};
  auto response = run_request(session, g).send().wait(client.ws());
  auto results = response.getResults();
  REQUIRE(results[0].getFetched());
  REQUIRE(results[0].getData().size() == 0);
  REQUIRE(values_of<float>(results[1].getData()) == std::vector<float>{0, 0, 0});
  auto read = results[0].getTensor().readRequest();
  read.setOffset(0);
  read.setLength(0);
  REQUIRE(read.send().wait(client.ws()).getData().size() == 0);
}

TEST_CASE("bool bytes other than 0 and 1 read as true") {
  DaemonProcess daemon(with_token());
  RawClient client(daemon.address());
  auto session = client.hello();
  std::vector<uint8_t> bytes{0, 1, 2, 255};
  auto uploaded = upload(session, client.ws(), "bool", {4}, bytes);
  GraphSpec g;
  g.inputs.push_back(InlineSpec{"bool", {4}, bytes});
  g.inputs.push_back(uploaded);
  g.nodes = {input_node(0, "bool", {4}),
             input_node(1, "bool", {4}),
             {"cast", {{0, 0}}, {{"dtype", DTypeName{"int32"}}}},
             {"cast", {{1, 0}}, {{"dtype", DTypeName{"int32"}}}}};
  g.outputs = {{2}, {3}, {1}};
  auto response = run_request(session, g).send().wait(client.ws());
  auto results = response.getResults();
  REQUIRE(values_of<int32_t>(results[0].getData()) == std::vector<int32_t>{0, 1, 1, 1});
  REQUIRE(values_of<int32_t>(results[1].getData()) == std::vector<int32_t>{0, 1, 1, 1});
  REQUIRE(values_of<uint8_t>(results[2].getData()) == std::vector<uint8_t>{0, 1, 1, 1});
}

}  // namespace
}  // namespace tensord::test
