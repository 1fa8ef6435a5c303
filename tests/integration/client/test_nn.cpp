// The C++ client's pooling and convolution conveniences against the real daemon: a max pool's
// (values, indices) node synced once and max_unpool's default size, the adaptive pools, lp_pool
// as PyTorch's composite, unbatched convolution inputs, and the composites of attention with
// grouped heads or dropout, of batch_norm's running-statistics update and of embedding's max_norm
// against float64 loops.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

#include "tests/integration/client/client_fixture.h"

using tensord::test::ClientFixture;

TEST_CASE("pool: max_pool2d_with_indices and max_unpool2d invert each other", "[client][nn]") {
  ClientFixture f;
  auto& s = f.session;
  // one plane of 4 x 4, windows of 2 x 2; the maximum of each window sits at a known place
  auto x = s.from_vector<float>({1, 9, 2, 3,  //
                                 4, 5, 8, 7,  //
                                 6, 0, 1, 1,  //
                                 2, 3, 1, 4},
                                {1, 1, 4, 4});
  auto [values, indices] = tensord::max_pool2d_with_indices(x, {2});
  CHECK(values.to_vector<float>() == std::vector<float>{9, 8, 6, 4});
  CHECK(indices.to_vector<int64_t>() == std::vector<int64_t>{1, 6, 8, 15});
  auto back = tensord::max_unpool2d(values, indices, {2});  // (2 - 1) 2 + 2 = 4 per axis
  CHECK(back.shape() == tensord::ir::Shape{1, 1, 4, 4});
  CHECK(back.to_vector<float>() ==
        std::vector<float>{0, 9, 0, 0, 0, 0, 8, 0, 6, 0, 0, 0, 0, 0, 0, 4});
  // a tie keeps the first maximum; unbatched (C, L)
  auto t = s.from_vector<float>({3, 3, 1, 5, 5, 2}, {1, 6});
  auto ti = tensord::max_pool1d_with_indices(t, {3});
  CHECK(ti.indices.to_vector<int64_t>() == std::vector<int64_t>{0, 3});
}

TEST_CASE("pool: adaptive and 3-d pools, lp_pool", "[client][nn]") {
  ClientFixture f;
  auto& s = f.session;
  std::vector<double> v(2 * 4 * 4 * 4);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(i);
  auto x = s.from_vector<double>(v, {1, 2, 4, 4, 4});
  // 2 x 2 x 2 windows of a ramp: the maximum is each window's last element
  auto m = tensord::max_pool3d(x, {2});
  CHECK(m.to_vector<double>()[0] == 21);  // (1, 1, 1) of plane 0: 16 + 4 + 1
  CHECK(tensord::adaptive_max_pool3d(x, {1, 1, 1}).to_vector<double>() ==
        std::vector<double>{63, 127});
  CHECK(tensord::adaptive_avg_pool3d(x, {1, 1, 1}).to_vector<double>() ==
        std::vector<double>{31.5, 95.5});
  auto [am, ai] = tensord::adaptive_max_pool1d_with_indices(
      s.from_vector<float>({1, 7, 2, 2, 9, 0}, {1, 6}), {2});
  CHECK(am.to_vector<float>() == std::vector<float>{7, 9});
  CHECK(ai.to_vector<int64_t>() == std::vector<int64_t>{1, 4});
  // lp_pool2d with p = 2 over 2 x 2 windows: the windows' Euclidean norms
  auto p = s.from_vector<float>({3, 0, 0, 4}, {1, 1, 2, 2});
  CHECK(std::fabs(tensord::lp_pool2d(p, 2.0, {2}).to_vector<float>()[0] - 5.0f) < 1e-6f);
}

TEST_CASE("conv: an unbatched input runs as a batch of one", "[client][nn]") {
  ClientFixture f;
  auto& s = f.session;
  auto x = s.from_vector<float>({1, 2, 3, 4, 5}, {1, 5});  // (C = 1, L = 5)
  auto w = s.from_vector<float>({1, -1}, {1, 1, 2});
  auto y = tensord::conv1d(x, w);
  CHECK(y.shape() == tensord::ir::Shape{1, 4});
  CHECK(y.to_vector<float>() == std::vector<float>{-1, -1, -1, -1});
  auto t = tensord::conv_transpose1d(s.from_vector<float>({1, 2}, {1, 2}), w);
  CHECK(t.to_vector<float>() == std::vector<float>{1, 1, -2});
}

namespace {

// softmax(q k^T / sqrt(E) + causal mask) * keep, times v, in double: one (L, E) head of q
// against one (S, E) head of k and (S, Ev) of v, row-major; keep is empty or (L, S).
std::vector<double> attention_reference(const std::vector<double>& q, const std::vector<double>& k,
                                        const std::vector<double>& v, int64_t l, int64_t s,
                                        int64_t e, int64_t ev, bool causal,
                                        const std::vector<double>& keep) {
  std::vector<double> out(static_cast<size_t>(l * ev), 0.0);
  for (int64_t i = 0; i < l; ++i) {
    std::vector<double> w(static_cast<size_t>(s));
    double top = -INFINITY, total = 0;
    for (int64_t j = 0; j < s; ++j) {
      double dot = 0;
      for (int64_t c = 0; c < e; ++c) dot += q[i * e + c] * k[j * e + c];
      w[j] = causal && j > i ? -INFINITY : dot / std::sqrt(static_cast<double>(e));
      top = std::max(top, w[j]);
    }
    for (double& x : w) total += (x = std::exp(x - top));
    for (int64_t j = 0; j < s; ++j) {
      const double weight = w[j] / total * (keep.empty() ? 1.0 : keep[i * s + j]);
      for (int64_t c = 0; c < ev; ++c) out[i * ev + c] += weight * v[j * ev + c];
    }
  }
  return out;
}

void check_close(const std::vector<double>& got, const std::vector<double>& want) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) CHECK(got[i] == Approx(want[i]).margin(1e-12));
}

}  // namespace

TEST_CASE("attention: grouped heads and dropout are composites of other ops", "[client][nn]") {
  ClientFixture f;
  auto& s = f.session;
  // two query heads of (2, 3) share one key head (3, 3) and one value head (3, 2)
  const std::vector<double> q{0.5, -1, 2, 1, 0, -0.5, -2, 1, 0.25, 0.75, 1.5, -1};
  const std::vector<double> k{1, 0, 2, -1, 1, 0.5, 0, -2, 1};
  const std::vector<double> v{1, 2, -1, 0.5, 3, -2};
  auto tq = s.from_vector<double>(q, {1, 2, 2, 3});
  auto tk = s.from_vector<double>(k, {1, 1, 3, 3});
  auto tv = s.from_vector<double>(v, {1, 1, 3, 2});
  auto per_head = [&](bool causal, const std::vector<double>& keep) {
    std::vector<double> all;
    for (int64_t h = 0; h < 2; ++h) {
      const std::vector<double> qh(q.begin() + h * 6, q.begin() + h * 6 + 6);
      const std::vector<double> kh =
          keep.empty() ? keep : std::vector<double>(keep.begin() + h * 6, keep.begin() + h * 6 + 6);
      auto o = attention_reference(qh, k, v, 2, 3, 3, 2, causal, kh);
      all.insert(all.end(), o.begin(), o.end());
    }
    return all;
  };
  using tensord::scaled_dot_product_attention;
  check_close(scaled_dot_product_attention(tq, tk, tv, {}, false, std::nullopt, 0, true)
                  .to_vector<double>(),
              per_head(false, {}));
  // dropout's mask of the same seed and shape, scaled by 1 / (1 - p)
  const auto keep =
      tensord::dropout(s.ones({1, 2, 2, 3}, tensord::ir::DType::Float64), 0.5, true, 7)
          .to_vector<double>();
  CHECK(std::count(keep.begin(), keep.end(), 0.0) > 0);
  CHECK(std::count(keep.begin(), keep.end(), 2.0) > 0);
  check_close(scaled_dot_product_attention(tq, tk, tv, {}, false, std::nullopt, 0.5, true, 7)
                  .to_vector<double>(),
              per_head(false, keep));
  check_close(scaled_dot_product_attention(tq, tk, tv, {}, true, std::nullopt, 0.5, true, 7)
                  .to_vector<double>(),
              per_head(true, keep));
  auto three = s.from_vector<double>(std::vector<double>(18, 1.0), {1, 3, 2, 3});
  auto two = s.from_vector<double>(std::vector<double>(18, 1.0), {1, 2, 3, 3});
  CHECK_THROWS_WITH(scaled_dot_product_attention(three, two, two, {}, false, std::nullopt, 0, true),
                    Catch::Contains("3 query heads are not a multiple of 2 key heads"));
  CHECK_THROWS_WITH(
      scaled_dot_product_attention(tq, tq, tq, {}, false, std::nullopt, 1.5),
      Catch::Contains("dropout_p must be in [0, 1], got 1.5") && !Catch::Contains("1.50"));
}

TEST_CASE("batch_norm: update_batch_norm_stats moves the running statistics", "[client][nn]") {
  ClientFixture f;
  auto& s = f.session;
  // (N = 2, C = 2, L = 2): channel 0 holds 1, 2, 5, 6; channel 1 holds 3, 4, 7, 8
  auto x = s.from_vector<double>({1, 2, 3, 4, 5, 6, 7, 8}, {2, 2, 2});
  auto mean = s.zeros({2}, tensord::ir::DType::Float32);
  auto var = s.ones({2}, tensord::ir::DType::Float64);
  const auto old_var = var;
  tensord::update_batch_norm_stats(x, mean, var, 0.25);
  CHECK(mean.dtype() == tensord::ir::DType::Float32);  // each statistic keeps its dtype
  CHECK(mean.to_vector<float>() == std::vector<float>{0.25f * 3.5f, 0.25f * 5.5f});
  // unbiased variance of {1, 2, 5, 6}: 17 / 3 (the same for channel 1)
  check_close(var.to_vector<double>(), {0.75 + 0.25 * 17 / 3.0, 0.75 + 0.25 * 17 / 3.0});
  CHECK(old_var.to_vector<double>() == std::vector<double>{1, 1});  // rebound, not overwritten
  tensord::Tensor none;
  tensord::update_batch_norm_stats(x, none, var, 0.5);  // an undefined statistic is left alone
  CHECK_FALSE(none.defined());
  auto flat = s.from_vector<double>({1, 2}, {2});
  CHECK_THROWS_WITH(tensord::update_batch_norm_stats(flat, mean, var),
                    Catch::Contains("needs x of rank >= 2 (N, C, ...), got (2,)"));
}

TEST_CASE("embedding: max_norm renormalizes the picked rows and writes them back", "[client][nn]") {
  ClientFixture f;
  auto& s = f.session;
  // Rows of 2-norm 5, 0.5, 10 and 1; row 0 is picked twice, row 3 not at all.
  const std::vector<float> table{3, 4, 0.3f, 0.4f, 6, 8, 1, 0};
  auto weight = s.from_vector<float>(table, {4, 2});
  const auto old_weight = weight;
  auto indices = s.from_vector<int64_t>({0, 1, 0, 2}, {2, 2});
  auto rows = tensord::embedding(indices, weight, 2.0);
  CHECK(rows.shape() == tensord::ir::Shape{2, 2, 2});
  auto renormed = [](double a, double b, double max_norm, double norm) {
    double k = norm > max_norm ? max_norm / (norm + 1e-7) : 1.0;
    return std::vector<double>{a * k, b * k};
  };
  std::vector<double> want;
  for (int64_t i : {0, 1, 0, 2}) {
    auto r = renormed(table[2 * i], table[2 * i + 1], 2.0,
                      std::hypot(double(table[2 * i]), double(table[2 * i + 1])));
    want.insert(want.end(), r.begin(), r.end());
  }
  auto got = rows.to_vector<float>();
  check_close(std::vector<double>(got.begin(), got.end()), want);
  // The table: rows 0 and 2 renormed, 1 (under max_norm) and 3 (not picked) as they were.
  auto table_now = weight.to_vector<float>();
  std::vector<double> want_table{want[0], want[1], 0.3, 0.4, want[6], want[7], 1, 0};
  check_close(std::vector<double>(table_now.begin(), table_now.end()), want_table);
  CHECK(old_weight.to_vector<float>() == table);  // rebound, not overwritten

  // norm_type 1: row 1's 1-norm is 0.7, under 0.8; row 0's is 7.
  auto w1 = s.from_vector<float>(table, {4, 2});
  auto one = tensord::embedding(s.from_vector<int64_t>({0, 1}, {2}), w1, 0.8, 1.0);
  auto got1 = one.to_vector<float>();
  const double k = 0.8 / (7 + 1e-7);
  check_close(std::vector<double>(got1.begin(), got1.end()), {3 * k, 4 * k, 0.3, 0.4});
}
