// Bytes in and out: every element type, and tensors far larger than one message.
#include <catch2/catch.hpp>

#include <numeric>

#include "tests/integration/client/client_fixture.h"

using tensord::ir::DType;
using tensord::test::ClientFixture;

TEMPLATE_TEST_CASE("every element type round-trips through the daemon", "[client]", bool, int8_t,
                   uint8_t, int16_t, int32_t, int64_t, float, double) {
  ClientFixture f;
  std::vector<TestType> values;
  for (int i = 0; i < 6; ++i) values.push_back(static_cast<TestType>(i % 2 == 0 ? i : -i));
  tensord::Tensor x = f.session.from_vector<TestType>(values, {3, 2});
  CHECK(x.dtype() == tensord::dtype_of<TestType>());
  // Through a computation on the daemon: a copy that really runs.
  tensord::Tensor y = x.transpose(0, 1).contiguous().transpose(0, 1);
  CHECK(y.to_vector<TestType>() == values);
}

TEST_CASE("16-bit floats round-trip", "[client]") {
  ClientFixture f;
  using tensord::ir::BFloat16;
  using tensord::ir::Float16;
  auto h = f.session.from_vector<Float16>({Float16(1.5f), Float16(-2.0f)});
  auto b = f.session.from_vector<BFloat16>({BFloat16(3.0f), BFloat16(0.25f)});
  auto hs = (h * 2.0f).to_vector<Float16>();
  auto bs = (b + 1.0).to_vector<BFloat16>();
  CHECK(static_cast<float>(hs[0]) == 3.0f);
  CHECK(static_cast<float>(hs[1]) == -4.0f);
  CHECK(static_cast<float>(bs[0]) == 4.0f);
  CHECK(static_cast<float>(bs[1]) == 1.25f);
}

TEST_CASE("64 MiB tensors go up and come back: shared memory on a unix socket, chunks over TCP",
          "[client]") {
  const bool tcp = GENERATE(false, true);
  ClientFixture f({}, tcp ? tensord::test::Transport::Tcp : tensord::test::Transport::Unix);
  auto& s = f.session;
  REQUIRE(s.info().max_chunk_bytes > 0);
  const size_t n = size_t{16} << 20;  // 16 Mi float32 = 64 MiB: 16 chunks of 4 MiB
  std::vector<float> values(n);
  std::iota(values.begin(), values.end(), 0.0f);
  auto x = s.from_vector<float>(values, {static_cast<int64_t>(n)});
  auto y = x + 1.0f;
  std::vector<float> out = y.to_vector<float>();
  REQUIRE(out.size() == n);
  bool all_right = true;
  for (size_t i = 0; i < n; ++i) all_right = all_right && out[i] == values[i] + 1.0f;
  CHECK(all_right);

  // The upload was kept as a daemon tensor (x is held), and reads back the same.
  CHECK(x.materialized());
  CHECK(x.to_vector<float>() == values);
  CHECK(f.live_tensors_eventually(2) == 2);
  CHECK(s.stats().live_bytes == 2 * n * sizeof(float));
}

TEST_CASE("many small host tensors share the inline budget of one message", "[client]") {
  ClientFixture f;
  auto& s = f.session;
  // 24 x 3 MiB: far over one message's 64 MiB if all went inline.
  const size_t n = 3 << 18;
  tensord::Tensor total = s.full({static_cast<int64_t>(n)}, 0.0f);
  for (int i = 0; i < 24; ++i) total = total + s.from_vector<float>(std::vector<float>(n, 1.0f));
  auto out = total.max().item<float>();
  CHECK(out == 24.0f);
}

TEST_CASE("zero-size and 0-d tensors", "[client]") {
  ClientFixture f;
  auto& s = f.session;
  auto empty = s.from_vector<float>({}, {0, 3});
  auto y = empty + 1.0f;
  CHECK(y.shape() == tensord::ir::Shape{0, 3});
  CHECK(y.to_vector<float>().empty());
  CHECK(empty.sum({0}).to_vector<float>() == std::vector<float>{0, 0, 0});
  auto scalar = s.full({}, 2.5f);
  CHECK(scalar.rank() == 0);
  CHECK((scalar * scalar).item<float>() == 6.25f);
}

TEST_CASE("syncing host data makes it a daemon tensor, inline or uploaded", "[client]") {
  ClientFixture f;
  auto& s = f.session;
  std::vector<int32_t> small{1, 2, 3};
  std::vector<int32_t> large(3 << 20, 7);  // 12 MiB: three chunks
  auto a = s.from_vector<int32_t>(small);
  auto b = s.from_vector<int32_t>(large);
  s.sync({a, b});
  CHECK(a.materialized());
  CHECK(b.materialized());
  CHECK(f.live_tensors_eventually(2) == 2);
  CHECK(a.to_vector<int32_t>() == small);
  CHECK(b.to_vector<int32_t>() == large);
  CHECK(b.sum().item<int64_t>() == int64_t{7} * (3 << 20));
}
