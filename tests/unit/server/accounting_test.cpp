// Account and Charge: bytes counted once per buffer (a run's output that is its input holds no
// new memory), tensors counted per charge, the daemon's totals following, and the session
// memory limit's check at its edges.
#include "server/accounting.h"

#include <catch2/catch.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/ir/error.h"

namespace tensord::server {
namespace {

TEST_CASE("a buffer's bytes count once however many tensors hold it") {
  auto daemon = std::make_shared<Usage>();
  auto account = std::make_shared<Account>(daemon);
  int a = 0, b = 0;  // two buffers, by address
  {
    Charge first(account, &a, 100);
    Charge same(account, &a, 100);  // td.sync(x): the output is the input's buffer
    Charge view(account, &a, 40);   // a view names less of it
    CHECK(account->usage().tensors == 3);
    CHECK(account->usage().bytes == 100);
    Charge other(account, &b, 7);
    CHECK(account->usage().bytes == 107);
    CHECK(daemon->bytes == 107);
    CHECK(daemon->tensors == 4);
    first = Charge();  // released; the others still hold the buffer
    CHECK(account->usage().bytes == 107);
    CHECK(account->usage().tensors == 3);
  }
  CHECK(account->usage().tensors == 0);
  CHECK(account->usage().bytes == 0);
  CHECK(daemon->bytes == 0);
}

TEST_CASE("a view charged first grows to the buffer's bytes when the whole is charged") {
  auto account = std::make_shared<Account>(std::make_shared<Usage>());
  int a = 0;
  Charge view(account, &a, 40);
  {
    Charge whole(account, &a, 100);
    CHECK(account->usage().bytes == 100);
  }
  CHECK(account->usage().bytes == 100);  // the largest charge named stays until the last goes
  view = Charge();
  CHECK(account->usage().bytes == 0);
}

TEST_CASE("new_bytes counts the buffers not held yet, each once") {
  auto account = std::make_shared<Account>(std::make_shared<Usage>());
  int held = 0, fresh = 0;
  Charge c(account, &held, 100);
  const std::vector<std::pair<const void*, uint64_t>> outputs{
      {&held, 100}, {&fresh, 30}, {&fresh, 50}};
  CHECK(account->new_bytes(outputs) == 50);
}

TEST_CASE("check_room: up to the limit passes, a byte more is a quota error naming it") {
  auto account = std::make_shared<Account>(std::make_shared<Usage>(), 1000);
  int a = 0;
  Charge c(account, &a, 600);
  CHECK_NOTHROW(account->check_room(400, "this upload"));
  try {
    account->check_room(401, "this upload");
    FAIL("no quota error");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::Quota);
    const std::string m = e.what();
    CHECK(m.find("this upload needs 401 bytes") != std::string::npos);
    CHECK(m.find("1 live tensors hold 600 bytes of its 1000 bytes") != std::string::npos);
    CHECK(m.find("--session-memory-limit") != std::string::npos);
    CHECK(m.find("; the largest holders: unknown 600 bytes in 1 tensor") != std::string::npos);
  }
  // No wrap-around for absurd sizes; no limit, no error.
  CHECK_THROWS_AS(account->check_room(UINT64_MAX, "x"), Error);
  auto unlimited = std::make_shared<Account>(std::make_shared<Usage>());
  CHECK_NOTHROW(unlimited->check_room(UINT64_MAX, "x"));
}

TEST_CASE("holdings: bytes by origin, largest first, the first origin of a buffer kept") {
  auto account = std::make_shared<Account>(std::make_shared<Usage>(), 1000);
  CHECK(account->holdings_text().empty());
  int a = 0, b = 0, c = 0, d = 0, e = 0;
  Charge ca(account, &a, 300, "fit.py:12 (matmul)");
  Charge cb(account, &b, 200, "fit.py:12 (matmul)");
  Charge same(account, &a, 300, "fit.py:40 (input)");  // td.sync(x): still made at line 12
  Charge cc(account, &c, 350, "upload");
  Charge cd(account, &d, 10, "fit.py:7 (add)");
  Charge ce(account, &e, 20);
  const std::vector<Holding> top = account->largest_holdings(3);
  REQUIRE(top.size() == 3);
  CHECK(top[0].origin == "fit.py:12 (matmul)");
  CHECK(top[0].bytes == 500);
  CHECK(top[0].tensors == 3);
  CHECK(top[1].origin == "upload");
  CHECK(top[2].origin == "unknown");  // 20 bytes beat fit.py:7's 10
  CHECK(account->largest_holdings(10).size() == 4);
  CHECK(account->holdings_text() ==
        "fit.py:12 (matmul) 500 bytes in 3 tensors, upload 350 bytes in 1 tensor, unknown 20 "
        "bytes in 1 tensor");
  try {
    account->check_room(200, "the run's 1 output");
    FAIL("no quota error");
  } catch (const Error& error) {
    const std::string m = error.what();
    CHECK(m.find("; the largest holders: fit.py:12 (matmul) 500 bytes in 3 tensors, upload") !=
          std::string::npos);
  }
}

}  // namespace
}  // namespace tensord::server
