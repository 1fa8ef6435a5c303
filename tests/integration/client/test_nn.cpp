// The C++ client's pooling and convolution conveniences against the real daemon: a max pool's
// (values, indices) node synced once and max_unpool's default size, the adaptive pools, lp_pool
// as PyTorch's composite, and unbatched convolution inputs.
#include <catch2/catch.hpp>

#include <cmath>

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
