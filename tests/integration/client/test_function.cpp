// tensord::Function against the real daemon: results equal the lazy run's, one trace per
// signature, captured tensors, every kind of argument, and the errors of a misused trace.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "tests/integration/client/client_fixture.h"

using tensord::Function;
using tensord::Session;
using tensord::Tensor;
using tensord::test::ClientFixture;

namespace {

std::vector<float> ramp(size_t n, float scale) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = std::sin(static_cast<float>(i) * 0.37f) * scale;
  return v;
}

// Two layers of a small MLP: what mlp_step_small times on a GPU.
Tensor mlp(const Tensor& x, const Tensor& w1, const Tensor& b1, const Tensor& w2) {
  return tensord::linear(tensord::relu(tensord::linear(x, w1, b1)), w2);
}

void check_close(const std::vector<float>& got, const std::vector<float>& want) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) CHECK(got[i] == Approx(want[i]).margin(1e-6));
}

}  // namespace

TEST_CASE("a function computes what the recorded graph computes, traced once", "[function]") {
  ClientFixture f;
  Session& s = f.session;
  Tensor w1 = s.from_vector(ramp(32 * 16, 0.3f), {32, 16});
  Tensor b1 = s.from_vector(ramp(32, 0.1f), {32});
  Tensor w2 = s.from_vector(ramp(8 * 32, 0.2f), {8, 32});
  s.sync({w1, b1, w2});
  Function step = s.function(
      [&](const std::vector<Tensor>& a) { return std::vector<Tensor>{mlp(a[0], w1, b1, w2)}; });
  const uint64_t runs = s.stats().runs;
  for (int i = 0; i < 3; ++i) {
    Tensor x = s.from_vector(ramp(4 * 16, 1.0f + i), {4, 16});
    std::vector<Tensor> out = step({x});
    REQUIRE(out.size() == 1);
    CHECK(out[0].shape() == tensord::ir::Shape{4, 8});  // known before the reply
    check_close(out[0].to_vector<float>(), mlp(x, w1, b1, w2).to_vector<float>());
    CHECK(out[0].materialized());
  }
  CHECK(step.traces() == 1);
  // Each call is one run; each check above one more (its lazy graph), and each read none
  // (the call's results are read, the lazy ones come back inline).
  CHECK(s.stats().runs == runs + 6);

  // A new batch size is a new signature: traced again, the first one still served.
  Tensor wide = s.from_vector(ramp(7 * 16, 2.0f), {7, 16});
  check_close(step({wide})[0].to_vector<float>(), mlp(wide, w1, b1, w2).to_vector<float>());
  CHECK(step.traces() == 2);
  Tensor narrow = s.from_vector(ramp(4 * 16, 3.0f), {4, 16});
  check_close(step({narrow})[0].to_vector<float>(), mlp(narrow, w1, b1, w2).to_vector<float>());
  CHECK(step.traces() == 2);
}

TEST_CASE("a function takes daemon tensors, host data and pending values", "[function]") {
  ClientFixture f;
  Session& s = f.session;
  Function axpy = s.function(
      [](const std::vector<Tensor>& a) { return std::vector<Tensor>{a[0] * 2.0f + a[1]}; });
  Tensor x = s.from_vector<float>({1, 2, 3});
  Tensor y = s.from_vector<float>({10, 20, 30});
  CHECK(axpy({x, y})[0].to_vector<float>() == std::vector<float>{12, 24, 36});  // both inline
  s.sync({x});
  CHECK(axpy({x, y})[0].to_vector<float>() == std::vector<float>{12, 24, 36});  // x on the daemon
  Tensor pending = x + 1.0f;
  CHECK(axpy({pending, y})[0].to_vector<float>() == std::vector<float>{14, 26, 38});
  CHECK(pending.materialized());  // synced first
  CHECK(axpy.traces() == 1);
  // The results are ordinary tensors: they record on and feed other calls.
  Tensor z = axpy({x, y})[0];
  CHECK((z - 2.0f).to_vector<float>() == std::vector<float>{10, 22, 34});
  CHECK(axpy({z, z})[0].to_vector<float>() == std::vector<float>{36, 72, 108});
}

TEST_CASE("captured tensors are fixed at the trace; arguments are not", "[function]") {
  ClientFixture f;
  Session& s = f.session;
  Tensor scale = s.from_vector<float>({2, 3});
  Function scaled =
      s.function([&](const std::vector<Tensor>& a) { return std::vector<Tensor>{a[0] * scale}; });
  Tensor ones = s.ones({2});
  CHECK(scaled({ones})[0].to_vector<float>() == std::vector<float>{2, 3});
  scale = s.from_vector<float>({5, 7});  // not seen: the trace captured the old value
  CHECK(scaled({ones})[0].to_vector<float>() == std::vector<float>{2, 3});
  // Dropping every handle of a captured tensor keeps it alive in the function.
  scale = Tensor();
  CHECK(scaled({ones})[0].to_vector<float>() == std::vector<float>{2, 3});
}

TEST_CASE("identity, constant, unused and multi-output functions", "[function]") {
  ClientFixture f;
  Session& s = f.session;
  Tensor c = s.from_vector<float>({4, 5});
  s.sync({c});
  Function odd = s.function([&](const std::vector<Tensor>& a) {
    // a[1] is unused; a[0] comes back as it is; c is a captured daemon tensor.
    tensord::ValuesIndices top = tensord::topk(a[2], 2);
    return std::vector<Tensor>{a[0], c, top.values, top.indices};
  });
  Tensor x = s.from_vector<float>({1, 2});
  Tensor unused = s.from_vector<int32_t>({9});
  Tensor v = s.from_vector<float>({3, 9, 1, 7});
  std::vector<Tensor> out = odd({x, unused, v});
  REQUIRE(out.size() == 4);
  CHECK(out[0].to_vector<float>() == std::vector<float>{1, 2});
  CHECK(out[1].to_vector<float>() == std::vector<float>{4, 5});
  CHECK(out[2].to_vector<float>() == std::vector<float>{9, 7});
  CHECK(out[3].to_vector<int64_t>() == std::vector<int64_t>{1, 3});
}

TEST_CASE("a function whose result size depends on the data", "[function]") {
  ClientFixture f;
  Session& s = f.session;
  Function nz = s.function(
      [](const std::vector<Tensor>& a) { return std::vector<Tensor>{tensord::nonzero(a[0])}; });
  CHECK(nz({s.from_vector<float>({0, 1, 0, 2})})[0].shape() == tensord::ir::Shape{2, 1});
  CHECK(nz({s.from_vector<float>({1, 1, 1, 0})})[0].shape() == tensord::ir::Shape{3, 1});
  CHECK(nz.traces() == 1);
}

TEST_CASE("calls follow the session's compile mode", "[function]") {
  ClientFixture f;
  Session& s = f.session;
  Function chain = s.function([](const std::vector<Tensor>& a) {
    return std::vector<Tensor>{tensord::tanh(tensord::exp(-(a[0] * a[0])) * 2.0f + 1.0f)};
  });
  Tensor x = s.from_vector(ramp(100, 2.0f), {100});
  const std::vector<float> fused = chain({x})[0].to_vector<float>();
  s.set_compile_mode("eager");
  check_close(chain({x})[0].to_vector<float>(), fused);
  s.set_compile_mode("default");
  check_close(chain({x})[0].to_vector<float>(), fused);
}

TEST_CASE("a traced value cannot be synced outside its trace", "[function][errors]") {
  ClientFixture f;
  Session& s = f.session;
  Tensor escaped;
  Function leaky = s.function([&](const std::vector<Tensor>& a) {
    escaped = a[0] + 1.0f;
    return std::vector<Tensor>{escaped * 2.0f};
  });
  CHECK(leaky({s.from_vector<float>({1})})[0].item<float>() == 4.0f);
  try {
    escaped.to_vector<float>();
    FAIL("a traced value was synced");
  } catch (const tensord::Error& e) {
    CHECK(e.code() == tensord::ErrorCode::InvalidGraph);
    CHECK_THAT(e.what(), Catch::Contains("tensord::Function"));
  }
  // The session goes on.
  CHECK((s.from_vector<float>({1}) + 1.0f).item<float>() == 2.0f);
}

TEST_CASE("a function's errors: empty bodies, bad graphs, other sessions", "[function][errors]") {
  ClientFixture f;
  Session& s = f.session;
  Tensor x = s.from_vector<float>({1, 2, 3});
  Function nothing = s.function([](const std::vector<Tensor>&) { return std::vector<Tensor>{}; });
  CHECK_THROWS_AS(nothing({x}), tensord::Error);

  // A shape error inside the body is the body's, at its line, when traced.
  Function bad = s.function([](const std::vector<Tensor>& a) {
    return std::vector<Tensor>{a[0].reshape({3, 1})};
  });
  try {
    bad({s.from_vector<float>({1, 2, 3, 4})});
    FAIL("a (4,) vector reshaped to (3, 1)");
  } catch (const tensord::Error& e) {
    CHECK(e.code() == tensord::ErrorCode::Shape);
    CHECK(e.where().file.find("test_function.cpp") != std::string::npos);
  }
  CHECK(bad.traces() == 0);  // a failed trace is not kept

  // A body throwing its own exception: it propagates, nothing is kept.
  Function throws = s.function([](const std::vector<Tensor>&) -> std::vector<Tensor> {
    throw std::runtime_error("the body's own");
  });
  CHECK_THROWS_AS(throws({x}), std::runtime_error);
  CHECK(throws.traces() == 0);

  // An undefined argument.
  Function id = s.function([](const std::vector<Tensor>& a) { return a; });
  CHECK_THROWS_AS(id({Tensor()}), tensord::Error);
  CHECK(id({x})[0].to_vector<float>() == std::vector<float>{1, 2, 3});
}

TEST_CASE("calls do not wait for their runs; results settle when used", "[function]") {
  ClientFixture f;
  Session& s = f.session;
  Function affine = s.function([](const std::vector<Tensor>& a) {
    return std::vector<Tensor>{a[0] * 3.0f + 1.0f, a[0].sum()};
  });
  Tensor x = s.from_vector<float>({1, 2, 3});
  s.sync({x});
  std::vector<std::vector<Tensor>> calls;
  for (int i = 0; i < 50; ++i) calls.push_back(affine({x}));
  // Chained through their results: each call's argument is the previous call's result.
  Tensor y = x;
  for (int i = 0; i < 3; ++i) y = affine({y})[0];
  for (const auto& c : calls) {
    CHECK(c[0].to_vector<float>() == std::vector<float>{4, 7, 10});
    CHECK(c[1].item<float>() == 6.0f);
  }
  CHECK(y.to_vector<float>() == std::vector<float>{40, 67, 94});  // ((3x+1)*3+1)*3+1

  // Calls whose results are dropped at once still run, in order with the session's runs.
  const uint64_t runs = s.stats().runs;
  for (int i = 0; i < 10; ++i) affine({x});
  CHECK((x + 1.0f).sum().item<float>() == 9.0f);  // queued behind the ten calls
  CHECK(s.stats().runs == runs + 11);
}

TEST_CASE("a call that fails on the daemon raises when its results are used",
          "[function][errors]") {
  ClientFixture f;
  Session& s = f.session;
  Tensor table = s.from_vector<float>({1, 2, 3, 4, 5});
  s.sync({table});
  const uint32_t line = __LINE__ + 2;
  Function pick = s.function([&](const std::vector<Tensor>& a) {
    Tensor picked = table.index_select(0, a[0]);
    return std::vector<Tensor>{picked * 2.0f, picked.sum()};
  });
  std::vector<Tensor> bad = pick({s.from_vector<int64_t>({0, 7})});  // 7 is out of bounds
  std::vector<Tensor> good = pick({s.from_vector<int64_t>({4, 0})});
  for (const Tensor& r : bad) {
    try {
      r.to_vector<float>();
      FAIL("index 7 of 5 elements ran");
    } catch (const tensord::Error& e) {
      INFO(e.what());
      CHECK(e.code() == tensord::ErrorCode::Shape);
      CHECK(e.op() == "index_select");
      CHECK(e.where().line == line);
    }
  }
  CHECK(good[0].to_vector<float>() == std::vector<float>{10, 2});
  CHECK(good[1].item<float>() == 6.0f);
  // Used as an argument, a result known to have failed raises its error before anything is
  // sent; one whose reply has not come yet fails the call it feeds, with its own error.
  Function twice =
      s.function([](const std::vector<Tensor>& a) { return std::vector<Tensor>{a[0] * 2.0f}; });
  CHECK_THROWS_AS(twice({bad[0]}), tensord::Error);
  try {
    // Raises where the failure is first known: here, at an argument whose call's reply came
    // while a new signature was traced, or when the last result is read.
    Tensor chained = twice({twice({pick({s.from_vector<int64_t>({9})})[0]})[0]})[0];
    chained.to_vector<float>();
    FAIL("a chain through an out-of-bounds index ran");
  } catch (const tensord::Error& e) {
    INFO(e.what());
    CHECK(e.code() == tensord::ErrorCode::Shape);
    CHECK(e.op() == "index_select");
  }
  CHECK(twice({good[0]})[0].to_vector<float>() == std::vector<float>{20, 4});  // goes on
}

TEST_CASE("a chain of calls on each other's results runs without waiting", "[function]") {
  ClientFixture f;
  Session& s = f.session;
  Function step = s.function([](const std::vector<Tensor>& a) {
    return std::vector<Tensor>{a[0] * 0.5f + a[1], a[1] + 1.0f};
  });
  Tensor x = s.from_vector<float>({8, 16});
  Tensor k = s.from_vector<float>({0, 1});
  // Each call's arguments are the previous call's results, still in flight: the daemon gets
  // them as promises (pipelining) and runs the chain in order.
  float want_x[2] = {8, 16}, want_k[2] = {0, 1};
  for (int i = 0; i < 20; ++i) {
    std::vector<Tensor> next = step({x, k});
    x = next[0];
    k = next[1];
    CHECK_FALSE(x.materialized());
    for (int j = 0; j < 2; ++j) {
      want_x[j] = want_x[j] * 0.5f + want_k[j];
      want_k[j] += 1;
    }
  }
  // A recorded op on a result in flight is sent with the promise too.
  Tensor total = (x + k).sum();
  CHECK(total.item<float>() == Approx(want_x[0] + want_x[1] + want_k[0] + want_k[1]));
  CHECK(x.to_vector<float>() == std::vector<float>{want_x[0], want_x[1]});
}

TEST_CASE("a function's captured tensors count in the session's memory while it lives",
          "[function]") {
  ClientFixture f(tensord::test::DaemonOptions::with_args({"--session-memory-limit", "2000000"}));
  Session& s = f.session;
  Tensor big = s.full({100000}, 1.0f);  // 400 kB
  s.sync({big});
  const uint64_t before = s.stats().live_bytes;
  {
    Function add_big =
        s.function([&](const std::vector<Tensor>& a) { return std::vector<Tensor>{a[0] + big}; });
    Tensor zeros = s.zeros({100000});
    CHECK(add_big({zeros})[0].sum().item<float>() == 100000.0f);
    big = Tensor();  // the function still holds it: `zeros` and `big` stay charged
    CHECK(f.live_tensors_eventually(2) == 2);
    CHECK(s.stats().live_bytes == 800000);

    // A function capturing more than the session may hold is refused, naming what: 800 kB
    // inline in the definition, next to `big` (400 kB, in add_big), `zeros` (400 kB) and the
    // argument (800 kB), under a 2 MB limit.
    std::vector<float> host(200000, 2.0f);
    Tensor constant = s.from_vector(host, {200000});
    Function too_big = s.function(
        [&](const std::vector<Tensor>& a) { return std::vector<Tensor>{a[0] * constant}; });
    try {
      too_big({s.zeros({200000})});
      FAIL("2.4 MB held under a 2 MB limit");
    } catch (const tensord::Error& e) {
      CHECK(e.code() == tensord::ErrorCode::Quota);
      CHECK_THAT(e.what(), Catch::Contains("captured"));
    }
  }
  // The function is gone: so is its charge.
  CHECK(f.live_tensors_eventually(0) == 0);
  CHECK(s.stats().live_bytes == 0);
  CHECK(before == 400000);
}

TEST_CASE("a function explains the plan its calls use", "[function]") {
  ClientFixture f;
  Session& s = f.session;
  Function chain = s.function([](const std::vector<Tensor>& a) {
    return std::vector<Tensor>{tensord::tanh(tensord::exp(-(a[0] * a[0])) * 2.0f + 1.0f)};
  });
  Tensor x = s.from_vector(ramp(100, 2.0f), {100});
  tensord::Explanation before = chain.explain({x});  // traces; runs nothing
  CHECK(chain.traces() == 1);
  CHECK(before.mode == "default");
  CHECK(before.steps == 1);  // the chain is one fused kernel
  REQUIRE(before.groups.size() == 1);
  CHECK(std::find(before.groups[0].ops.begin(), before.groups[0].ops.end(), "exp") !=
        before.groups[0].ops.end());
  CHECK_FALSE(before.captured);  // never on the CPU
  (void)chain({x})[0].to_vector<float>();
  CHECK(chain.explain({x}).plan_cached);
  s.set_compile_mode("eager");
  tensord::Explanation eager = chain.explain({x});
  CHECK(eager.mode == "eager");
  CHECK(eager.groups.empty());
  CHECK(eager.steps > 1);
}

TEST_CASE("profiled calls trace their requests and kernels, without validation", "[function]") {
  ClientFixture f;
  Session& s = f.session;
  Function chain = s.function([](const std::vector<Tensor>& a) {
    return std::vector<Tensor>{tensord::tanh(tensord::exp(-(a[0] * a[0])) * 2.0f + 1.0f)};
  });
  Tensor x = s.from_vector(ramp(1000, 2.0f), {1000});
  (void)chain({x})[0].to_vector<float>();  // traced and planned before the profile
  tensord::Profile prof = s.profile();
  Tensor y;
  for (int i = 0; i < 5; ++i) y = chain({x})[0];
  (void)y.to_vector<float>();
  prof.stop();
  std::map<std::string, uint64_t> calls;
  for (const tensord::profiler::KeyAverage& k : prof.key_averages()) calls[k.key] = k.calls;
  CHECK(calls["[request]"] >= 5);
  CHECK(calls["[execute]"] == 5);
  CHECK(calls["[queue_wait]"] >= 5);
  // A call brings no graph: nothing to validate or look up.
  CHECK(calls.count("[validate]") == 0);
  CHECK(calls.count("[plan_lookup]") == 0);
  bool kernel = false;
  for (const auto& [key, n] : calls) kernel = kernel || (key.starts_with("fused:") && n == 5);
  CHECK(kernel);
}
