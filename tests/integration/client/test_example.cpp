// The example program and a tour of the ops through the real daemon.
#include <catch2/catch.hpp>

#include <cmath>

#include "tests/integration/client/client_fixture.h"

using tensord::ir::DType;
using tensord::test::ClientFixture;

TEST_CASE("the README example computes relu(a @ w + 1).sum(1)", "[client]") {
  ClientFixture f;
  auto& s = f.session;
  auto a = s.from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  auto w = s.full({3, 4}, 0.5f);
  auto y = tensord::relu(tensord::matmul(a, w) + 1.0f).sum({1});
  CHECK(y.dtype() == DType::Float32);
  CHECK(y.shape() == tensord::ir::Shape{2});
  std::vector<float> out = y.to_vector<float>();
  CHECK(out == std::vector<float>{16, 34});
}

TEST_CASE("hello example program prints the result", "[client]") {
  ClientFixture f;
  std::string bin = tensord::test::daemon_binary();
  std::string example = bin.substr(0, bin.rfind('/') + 1) + "tensord-example-hello";
  std::string command = example + " " + f.daemon.address();
  FILE* pipe = popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  char buffer[256] = {};
  std::string output;
  while (fgets(buffer, sizeof(buffer), pipe)) output += buffer;
  CHECK(pclose(pipe) == 0);
  CHECK(output == "y = 16 34\n");
}

TEST_CASE("dtypes follow the values and the weak-scalar rules", "[client]") {
  ClientFixture f;
  auto& s = f.session;
  CHECK(s.full({2}, 0.5f).dtype() == DType::Float32);
  CHECK(s.full({2}, 0.5).dtype() == DType::Float64);
  CHECK(s.full({2}, 1).dtype() == DType::Int32);
  CHECK(s.full({2}, int64_t{1}).dtype() == DType::Int64);
  CHECK(s.full({2}, true).dtype() == DType::Bool);
  CHECK(s.full({2}, 7, DType::Int8).dtype() == DType::Int8);

  auto i8 = s.full({3}, 100, DType::Int8);
  CHECK((i8 + 1).dtype() == DType::Int8);       // same kind: the tensor's dtype
  CHECK((i8 * 1.5).dtype() == DType::Float32);  // a float scalar: the default float
  CHECK((i8 / 2).dtype() == DType::Float32);    // true division
  CHECK((i8 > 0.5).dtype() == DType::Bool);
  auto h = s.full({2}, 1.0f, DType::Float16);
  CHECK((h + 2.0).dtype() == DType::Float16);  // a weak float keeps float16
  CHECK((2.0 * h).dtype() == DType::Float16);
  CHECK((s.full({2}, true) + 1).dtype() == DType::Int64);

  auto x = s.from_vector<int32_t>({1, 2, 3});
  CHECK((x + 1.5f).to_vector<float>() == std::vector<float>{2.5f, 3.5f, 4.5f});
  CHECK((10 - x).to_vector<int32_t>() == std::vector<int32_t>{9, 8, 7});
  CHECK((-x).to_vector<int32_t>() == std::vector<int32_t>{-1, -2, -3});
}

TEST_CASE("ops through the daemon", "[client]") {
  ClientFixture f;
  auto& s = f.session;
  auto x = s.from_vector<float>({1, -2, 3, -4, 5, -6}, {2, 3});

  SECTION("reductions") {
    CHECK(x.sum({1}).to_vector<float>() == std::vector<float>{2, -5});
    CHECK(x.sum().item<float>() == -3);
    CHECK(x.max({1}).to_vector<float>() == std::vector<float>{3, 5});
    CHECK(x.min({0}).to_vector<float>() == std::vector<float>{-4, -2, -6});
    CHECK(x.mean({0, 1}).item<float>() == Approx(-0.5));
    CHECK(x.prod().item<float>() == -720);
    CHECK(x.argmax(1).to_vector<int64_t>() == std::vector<int64_t>{2, 1});
    CHECK(x.argmin().item<int64_t>() == 5);
    CHECK(x.sum({1}, true).shape() == tensord::ir::Shape{2, 1});
    auto v = s.from_vector<double>({1, 2, 3, 4}).var({0}, 1);
    CHECK(v.item<double>() == Approx(5.0 / 3));
  }
  SECTION("shape ops") {
    CHECK(x.transpose(0, 1).to_vector<float>() == std::vector<float>{1, -4, -2, 5, 3, -6});
    CHECK(x.reshape({3, -1}).shape() == tensord::ir::Shape{3, 2});
    CHECK(x.slice(1, 0, std::nullopt, 2).to_vector<float>() == std::vector<float>{1, 3, -4, -6});
    CHECK(x.flip({1}).to_vector<float>() == std::vector<float>{3, -2, 1, -6, 5, -4});
    CHECK(x.unsqueeze(0).shape() == tensord::ir::Shape{1, 2, 3});
    CHECK(x.unsqueeze(0).squeeze().shape() == tensord::ir::Shape{2, 3});
    CHECK(x.permute({1, 0}).contiguous().to_vector<float>() ==
          std::vector<float>{1, -4, -2, 5, 3, -6});
    CHECK(tensord::concat({x, x}, 0).shape() == tensord::ir::Shape{4, 3});
    CHECK(tensord::stack({x, x}, 1).shape() == tensord::ir::Shape{2, 2, 3});
    auto row = s.from_vector<float>({1, 2});
    CHECK(row.pad({1, 0}, 9.0f).to_vector<float>() == std::vector<float>{9, 1, 2});
    CHECK(row.reshape({2, 1}).expand({2, 2}).to_vector<float>() == std::vector<float>{1, 1, 2, 2});
    auto index = s.from_vector<int64_t>({1, 0});
    CHECK(x.index_select(0, index).to_vector<float>() == std::vector<float>{-4, 5, -6, 1, -2, 3});
    auto gi = s.from_vector<int64_t>({2, 0}, {2, 1});
    CHECK(x.gather(1, gi).to_vector<float>() == std::vector<float>{3, -4});
  }
  SECTION("elementwise") {
    CHECK(x.abs().to_vector<float>() == std::vector<float>{1, 2, 3, 4, 5, 6});
    CHECK(x.clamp(-1.0f, 2.0f).to_vector<float>() == std::vector<float>{1, -1, 2, -1, 2, -1});
    CHECK(tensord::where(x > 0, x, 0.0f).to_vector<float>() ==
          std::vector<float>{1, 0, 3, 0, 5, 0});
    CHECK((x == 3.0f).to_vector<bool>() ==
          std::vector<bool>{false, false, true, false, false, false});
    CHECK(x.astype(DType::Int32).to_vector<int32_t>() == std::vector<int32_t>{1, -2, 3, -4, 5, -6});
    CHECK(tensord::maximum(x, 0).to_vector<float>() == std::vector<float>{1, 0, 3, 0, 5, 0});
    auto e = s.from_vector<float>({0, 1}).exp().to_vector<float>();
    CHECK(e[1] == Approx(std::exp(1.0f)));
  }
  SECTION("nn ops") {
    auto sm = x.softmax(1).sum({1}).to_vector<float>();
    CHECK(sm[0] == Approx(1));
    CHECK(sm[1] == Approx(1));
    auto ln = x.layer_norm(1).mean({1}).to_vector<float>();
    CHECK(ln[0] == Approx(0).margin(1e-5));
    CHECK(x.gelu().shape() == x.shape());
    CHECK(x.silu().log_softmax(0).shape() == x.shape());
    auto id = s.eye(3);
    auto m = s.arange(9).astype(DType::Float32).reshape({3, 3});
    CHECK(tensord::matmul(m, id).to_vector<float>() ==
          std::vector<float>{0, 1, 2, 3, 4, 5, 6, 7, 8});
  }
  SECTION("creation") {
    CHECK(s.arange(0, 5, 2).to_vector<int64_t>() == std::vector<int64_t>{0, 2, 4});
    CHECK(s.zeros({2}).to_vector<float>() == std::vector<float>{0, 0});
    CHECK(s.ones({2}, DType::Int16).to_vector<int16_t>() == std::vector<int16_t>{1, 1});
    auto r1 = s.rand({4}, 42).to_vector<float>();
    auto r2 = s.rand({4}, 42).to_vector<float>();
    CHECK(r1 == r2);
    for (float v : r1) CHECK((v >= 0 && v < 1));
    CHECK(s.randn({3}, 1, DType::Float64).dtype() == DType::Float64);
  }
}
