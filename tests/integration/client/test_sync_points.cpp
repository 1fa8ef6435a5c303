// Lazy recording: nothing goes out before a sync point, one run per sync point, held values
// are never computed twice, and dropped tensors are freed on the daemon.
#include <catch2/catch.hpp>

#include "tests/integration/client/client_fixture.h"

using tensord::test::ClientFixture;

TEST_CASE("recording sends nothing; each sync point is one run", "[client]") {
  ClientFixture f;
  auto& s = f.session;
  uint64_t runs = s.stats().runs;

  auto a = s.from_vector<float>({1, 2, 3, 4}, {2, 2});
  auto b = tensord::exp(a * 2.0f + a).sum({0});
  auto c = tensord::matmul(a, a).max();
  CHECK(s.stats().runs == runs);
  CHECK_FALSE(b.materialized());

  std::vector<float> values = b.to_vector<float>();
  CHECK(s.stats().runs == runs + 1);
  CHECK(b.materialized());
  CHECK_FALSE(c.materialized());

  // Reading a materialized tensor again is a read, not a run.
  CHECK(b.to_vector<float>() == values);
  CHECK(s.stats().runs == runs + 1);

  // Several tensors in one explicit sync: still one run.
  auto d = c + 1.0f;
  auto e = c - 1.0f;
  s.sync({c, d, e});
  CHECK(s.stats().runs == runs + 2);
  CHECK((c.materialized() && d.materialized() && e.materialized()));
  CHECK(d.item<float>() == 23);
  CHECK(e.item<float>() == 21);
  CHECK(s.stats().runs == runs + 2);

  // Host data read back needs no daemon at all.
  CHECK(a.to_vector<float>() == std::vector<float>{1, 2, 3, 4});
  CHECK(s.stats().runs == runs + 2);
}

TEST_CASE("intermediates the user still holds are materialized, not recomputed", "[client]") {
  ClientFixture f;
  auto& s = f.session;
  auto a = s.from_vector<float>({1, 2, 3});
  auto held = a * 10.0f;  // the user keeps this handle
  auto y = (held + 1.0f).sum();
  auto not_held = [&] { return (a - 1.0f).sum(); }();  // intermediates dropped at once
  CHECK(y.item<float>() == 63);

  // `held` came back as an extra output of the same run, and so did the host data `a`.
  CHECK(held.materialized());
  CHECK(a.materialized());
  CHECK_FALSE(not_held.materialized());
  CHECK(f.live_tensors_eventually(3) == 3);  // a, held, y

  // The next graph starts from the daemon's copy of `held` instead of recomputing it.
  uint64_t runs = s.stats().runs;
  auto z = held * 2.0f;
  CHECK(z.to_vector<float>() == std::vector<float>{20, 40, 60});
  CHECK(s.stats().runs == runs + 1);
  CHECK(not_held.item<float>() == 3);
}

TEST_CASE("dropping the last handle frees the tensor on the daemon", "[client]") {
  ClientFixture f;
  auto& s = f.session;
  REQUIRE(f.live_tensors_eventually(0) == 0);
  {
    auto a = s.from_vector<float>({1, 2, 3, 4});
    auto b = a + 1.0f;
    auto c = b.sum();
    s.sync({b, c});
    CHECK(f.live_tensors_eventually(3) == 3);  // a (held), b, c
    {
      auto copy = b;  // a second handle to the same tensor
      b = tensord::Tensor();
      CHECK(f.live_tensors_eventually(3) == 3);
    }
    CHECK(f.live_tensors_eventually(2) == 2);
  }
  CHECK(f.live_tensors_eventually(0) == 0);
  CHECK(s.stats().live_bytes == 0);
}

TEST_CASE("a long recorded chain is sent once and released without deep recursion", "[client]") {
  ClientFixture f;
  auto& s = f.session;
  auto x = s.full({16}, 0.0f);
  for (int i = 0; i < 2000; ++i) x = x + 1.0f;
  CHECK(x.to_vector<float>() == std::vector<float>(16, 2000.0f));

  // Never synced: dropped with a 200000-node history, which must not overflow the stack.
  auto y = s.full({1}, 0.0f);
  for (int i = 0; i < 200000; ++i) y = y + 1.0f;
  y = tensord::Tensor();
}

TEST_CASE("an op with several outputs runs once; its held outputs materialize together",
          "[client][multi-output]") {
  ClientFixture f;
  auto& s = f.session;
  auto x = s.from_vector<float>({8.0f, -3.0f, 0.0f, 0.375f});
  uint64_t runs = s.stats().runs;

  // Syncing the first output brings the second along: reading it is a read, not a run.
  auto [mantissa, exponent] = tensord::frexp(x * 1.0f);
  CHECK(mantissa.to_vector<float>() == std::vector<float>{0.5f, -0.75f, 0.0f, 0.75f});
  CHECK(s.stats().runs == runs + 1);
  CHECK(exponent.materialized());
  CHECK(exponent.to_vector<int32_t>() == std::vector<int32_t>{4, 2, 0, -1});
  CHECK(s.stats().runs == runs + 1);

  // Syncing only a later output, with the first one's handle dropped, and consuming both
  // outputs of one node in one graph.
  auto second_only = tensord::frexp(x + 0.0f).exponent;
  CHECK(second_only.to_vector<int32_t>() == std::vector<int32_t>{4, 2, 0, -1});
  auto both = tensord::frexp(x);
  auto rebuilt =
      both.mantissa * tensord::pow(2.0f, both.exponent.astype(tensord::ir::DType::Float32));
  CHECK(rebuilt.to_vector<float>() == std::vector<float>{8.0f, -3.0f, 0.0f, 0.375f});
  CHECK(s.stats().runs == runs + 3);
  // Both are held by `both`, so they came back as extra outputs of that run.
  CHECK((both.mantissa.materialized() && both.exponent.materialized()));
}

TEST_CASE("a wrong dtype for an op with several outputs fails at the recording line",
          "[client][multi-output]") {
  ClientFixture f;
  auto x = f.session.from_vector<int32_t>({1, 2});
  try {
    (void)tensord::frexp(x);
    FAIL("frexp of int32 recorded");
  } catch (const tensord::Error& e) {
    CHECK(e.code() == tensord::ErrorCode::DType);
    CHECK(std::string(e.what()).find("frexp") != std::string::npos);
    CHECK(std::string(e.what()).find("test_sync_points.cpp") != std::string::npos);
  }
}
