// Errors: at the user's line, at record time when inference can tell, from the daemon otherwise.
#include <catch2/catch.hpp>

#include "tests/integration/client/client_fixture.h"

using tensord::ErrorCode;
using tensord::test::ClientFixture;

TEST_CASE("shape and dtype errors are thrown at the recording line, before anything is sent",
          "[client]") {
  ClientFixture f;
  auto& s = f.session;
  auto a = s.from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  auto b = s.full({2, 2}, 1.0f);
  uint64_t runs = s.stats().runs;

  int line = 0;
  try {
    line = __LINE__ + 1;
    auto bad = tensord::matmul(a, b);
    FAIL("matmul of (2, 3) and (2, 2) was recorded");
  } catch (const tensord::Error& e) {
    CHECK(e.code() == ErrorCode::Shape);
    CHECK(e.op() == "matmul");
    CHECK(e.where().file == __FILE__);
    CHECK(e.where().line == static_cast<uint32_t>(line));
  }

  try {
    line = __LINE__ + 1;
    auto bad = a + b;  // operators capture the expression's line too
    FAIL("(2, 3) + (2, 2) was recorded");
  } catch (const tensord::Error& e) {
    CHECK(e.code() == ErrorCode::Shape);
    CHECK(e.op() == "add");
    CHECK(e.where().file == __FILE__);
    CHECK(e.where().line == static_cast<uint32_t>(line));
  }

  try {
    auto flags = s.full({2}, true);
    line = __LINE__ + 1;
    auto bad = -flags;
    FAIL("neg of bool was recorded");
  } catch (const tensord::Error& e) {
    CHECK(e.code() == ErrorCode::DType);
    CHECK(e.op() == "neg");
    CHECK(e.where().line == static_cast<uint32_t>(line));
  }

  try {
    line = __LINE__ + 1;
    auto bad = a.sum({5});
    FAIL("sum over axis 5 of a 2-d tensor was recorded");
  } catch (const tensord::Error& e) {
    CHECK(e.code() == ErrorCode::Shape);
    CHECK(e.where().line == static_cast<uint32_t>(line));
  }

  CHECK_THROWS_MATCHES(s.from_vector<float>({1, 2, 3}, {2, 2}), tensord::Error,
                       Catch::Predicate<tensord::Error>(
                           [](const tensord::Error& e) { return e.code() == ErrorCode::Shape; }));
  CHECK_THROWS_MATCHES(a.to_vector<double>(), tensord::Error,
                       Catch::Predicate<tensord::Error>(
                           [](const tensord::Error& e) { return e.code() == ErrorCode::DType; }));
  CHECK_THROWS_MATCHES(a.item<float>(), tensord::Error,
                       Catch::Predicate<tensord::Error>(
                           [](const tensord::Error& e) { return e.code() == ErrorCode::Shape; }));
  CHECK_THROWS_AS(tensord::Tensor().shape(), tensord::Error);
  CHECK(s.stats().runs == runs);
}

TEST_CASE("a daemon-side error carries its code and the recording line", "[client]") {
  ClientFixture f;
  auto& s = f.session;
  auto x = s.from_vector<float>({1, 2, 3, 4, 5});
  auto index = s.from_vector<int64_t>({0, 7});
  int line = __LINE__ + 1;
  auto picked = x.index_select(0, index);
  auto y = (picked * 2.0f).sum();
  try {
    y.item<float>();
    FAIL("index 7 of 5 elements ran");
  } catch (const tensord::Error& e) {
    INFO(e.what());
    CHECK(e.code() == ErrorCode::Shape);
    CHECK(e.op() == "index_select");
    CHECK(e.where().file == __FILE__);
    CHECK(e.where().line == static_cast<uint32_t>(line));
    CHECK(e.message().find("out of bounds") != std::string::npos);
  }
  // The session goes on.
  CHECK((x + 1.0f).sum().item<float>() == 20);
}

TEST_CASE("out of memory names the session's live tensors and their lines, with no profile",
          "[client]") {
  tensord::test::ClientFixture f(
      tensord::test::DaemonOptions::with_args({"--max-tensor-bytes", "4503599627370496"}));
  auto& s = f.session;
  const int keep_line = __LINE__ + 1;
  auto keep = s.full({1 << 16}, 1.0f);
  s.sync({keep});
  auto huge = s.full({int64_t{1} << 23, int64_t{1} << 23}, 2.0f);  // 256 TiB
  try {
    s.sync({huge});
    FAIL("a 256 TiB tensor was allocated");
  } catch (const tensord::Error& e) {
    INFO(e.what());
    CHECK(e.code() == ErrorCode::OutOfMemory);
    CHECK(e.message().find("this session's 1 live tensors hold 256.00 KiB (262144 bytes), the "
                           "largest: " +
                           std::string(__FILE__) + ":" + std::to_string(keep_line) +
                           " (full) 256.00 KiB (262144 bytes) in 1 tensor") != std::string::npos);
  }
  CHECK((keep + 1.0f).to_vector<float>()[0] == 2.0f);  // the session goes on
}

TEST_CASE("one_hot without num_classes syncs to learn it; empty input is a shape error",
          "[client]") {
  tensord::test::ClientFixture f;
  auto x = f.session.from_vector<int64_t>({2, 0, 1, 2});
  auto h = tensord::one_hot(x * int64_t{1});
  CHECK(h.shape() == tensord::ir::Shape{4, 3});
  CHECK(h.to_vector<int64_t>() == std::vector<int64_t>{0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 1});
  auto empty = f.session.from_vector<int64_t>({});
  CHECK_THROWS_AS(tensord::one_hot(empty), tensord::Error);
}
