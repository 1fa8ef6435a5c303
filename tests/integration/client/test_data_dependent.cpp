// Data-dependent output shapes through the real daemon (issue 4's rule): a nonzero feeding
// elementwise ops and a sum is recorded, sent and computed in one run; the client learns the
// size at that sync.
#include <catch2/catch.hpp>

#include <cmath>

#include "engine/ir/dynamic.h"
#include "tensord/ops.h"
#include "tests/integration/client/client_fixture.h"

namespace ir = tensord::ir;
using tensord::test::ClientFixture;

TEST_CASE("nonzero feeding an elementwise op and a sum: one run", "[client][dynamic]") {
  ClientFixture f;
  auto& s = f.session;
  auto x = s.from_vector<float>({0, 1, 0, 2, 0, 3}, {2, 3});
  auto nz = tensord::nonzero(x);
  CHECK(nz.shape() == ir::Shape{ir::kDynamic, 2});  // unknown until it runs
  auto scaled = nz.cast(ir::DType::Float32) * 10.0f + 1.0f;
  CHECK(scaled.shape() == ir::Shape{ir::kDynamic, 2});
  auto total = scaled.sum();
  CHECK(total.shape().empty());
  const uint64_t runs = s.stats().runs;
  s.sync({total, scaled, nz});
  CHECK(s.stats().runs == runs + 1);
  CHECK(nz.shape() == ir::Shape{3, 2});
  CHECK(scaled.shape() == ir::Shape{3, 2});
  CHECK(total.item<float>() == 56);  // 10 * (0+1+1+0+1+2) + 6
  CHECK(nz.to_vector<int64_t>() == std::vector<int64_t>{0, 1, 1, 0, 1, 2});
  CHECK(s.stats().runs == runs + 1);
}

TEST_CASE("later ops consume a synced data-dependent tensor; item() learns the size",
          "[client][dynamic]") {
  ClientFixture f;
  auto& s = f.session;
  auto x = s.from_vector<float>({3, 1, 3, 2, 1, 3});
  auto u = tensord::unique(x);
  auto counts = tensord::unique_counts(x);
  CHECK(u.to_vector<float>() == std::vector<float>{1, 2, 3});
  CHECK(u.shape() == ir::Shape{3});
  auto weighted = (u * counts.cast(ir::DType::Float32)).sum();  // counts still pending
  CHECK(weighted.item<float>() == 13);
  CHECK(counts.to_vector<int64_t>() == std::vector<int64_t>{2, 1, 3});
  // x[x > 1] = masked_select through boolean_index, and a scalar from a dynamic tensor.
  auto picked = tensord::boolean_index(x, x > 1.5f);
  CHECK(picked.to_vector<float>() == std::vector<float>{3, 3, 2, 3});
  auto none = tensord::masked_select(x, x > 10.0f);
  CHECK(none.sum().item<float>() == 0);
  CHECK(none.shape() == ir::Shape{0});  // held by the user, so returned by its sum's run too
  auto cols = tensord::where(s.from_vector<float>({0, 1, 1, 0}, {2, 2}));
  REQUIRE(cols.size() == 2);
  CHECK(cols[0].to_vector<int64_t>() == std::vector<int64_t>{0, 1});
  CHECK(cols[1].to_vector<int64_t>() == std::vector<int64_t>{1, 0});
}

TEST_CASE("unique_all: four outputs of one node from one run", "[client][dynamic]") {
  ClientFixture f;
  auto& s = f.session;
  auto x = s.from_vector<double>({3, NAN, 1, 3, -0.0, 0.0, NAN, 1}, {2, 4});
  const uint64_t runs = s.stats().runs;
  tensord::UniqueAll u = tensord::unique_all(x);
  CHECK(u.inverse_indices.shape() == ir::Shape{2, 4});  // static
  CHECK(u.counts.to_vector<int64_t>() == std::vector<int64_t>{2, 2, 2, 1, 1});
  CHECK(s.stats().runs == runs + 1);
  CHECK(u.values.materialized());  // the other outputs came back in the same run
  const std::vector<double> v = u.values.to_vector<double>();
  REQUIRE(v.size() == 5);  // -0.0 and 0.0 one value; each NaN its own, last
  CHECK((v[0] == 0 && v[1] == 1 && v[2] == 3 && std::isnan(v[3]) && std::isnan(v[4])));
  CHECK(u.indices.to_vector<int64_t>() == std::vector<int64_t>{4, 2, 0, 1, 6});
  CHECK(u.inverse_indices.to_vector<int64_t>() == std::vector<int64_t>{2, 3, 1, 2, 0, 0, 4, 1});
  CHECK(s.stats().runs == runs + 1);
}

TEST_CASE("a size mismatch found at run time is an error at the user's line", "[client][dynamic]") {
  ClientFixture f;
  auto& s = f.session;
  auto x = s.from_vector<float>({1, 0, 1});
  auto y = s.from_vector<float>({1, 2, 3});
  const auto line = __LINE__ + 1;
  auto bad = tensord::masked_select(x, x > 0.5f) + tensord::unique(y);  // (2,) + (3,)
  try {
    bad.to_vector<float>();
    FAIL("expected a shape error");
  } catch (const tensord::Error& e) {
    CHECK(e.code() == tensord::ErrorCode::Shape);
    CHECK(e.where().line == line);
  }
  // (n,) + (3,) is taken to be (3,) when recorded and checked when n is known.
  auto ok = tensord::masked_select(y, y > 0.0f) + y;
  CHECK(ok.shape() == ir::Shape{3});
  CHECK(ok.to_vector<float>() == std::vector<float>{2, 4, 6});
  auto wrong = tensord::masked_select(y, y > 1.5f) + y;  // n = 2
  CHECK_THROWS_AS(wrong.to_vector<float>(), tensord::Error);
}
