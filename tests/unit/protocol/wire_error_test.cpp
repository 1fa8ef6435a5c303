#include "protocol/wire_error.h"

#include <catch2/catch.hpp>

namespace tensord::protocol {
namespace {

void require_same(const Error& a, const Error& b) {
  REQUIRE(a.code() == b.code());
  REQUIRE(a.message() == b.message());
  REQUIRE(a.node() == b.node());
  REQUIRE(a.op() == b.op());
  REQUIRE(a.where().file == b.where().file);
  REQUIRE(a.where().line == b.where().line);
}

TEST_CASE("encode_error writes the documented prefix") {
  Error e(ErrorCode::Shape, "shapes (2, 3) and (4,) do not broadcast", 3, "add",
          SourceLocation{"train.cpp", 12});
  REQUIRE(encode_error(e) ==
          "[tensord:shape node=3 op=add at=train.cpp:12] shapes (2, 3) and (4,) do not broadcast");
  REQUIRE(encode_error(Error(ErrorCode::Version, "major 2 != 1")) ==
          "[tensord:version] major 2 != 1");
}

TEST_CASE("decode_error inverts encode_error") {
  std::vector<Error> errors{
      Error(ErrorCode::InvalidGraph, "unknown op 'frobnicate'", 0, "", {}),
      Error(ErrorCode::OutOfMemory, "no", std::nullopt, "matmul", {}),
      Error(ErrorCode::Internal, "", 7, "", SourceLocation{"a b/c:d.py", 4}),
      Error(ErrorCode::DType, "x] y", 1, "exp", SourceLocation{"odd]name\\] x.cpp", 99}),
      Error(ErrorCode::Cancelled, "multi\nline ] message"),
  };
  for (const Error& e : errors) {
    auto decoded = decode_error("remote exception: " + encode_error(e));
    REQUIRE(decoded);
    require_same(*decoded, e);
  }
}

TEST_CASE("decode_error rejects descriptions without a valid prefix") {
  REQUIRE_FALSE(decode_error("connection reset"));
  REQUIRE_FALSE(decode_error("[tensord:no_such_code] x"));
  REQUIRE_FALSE(decode_error("[tensord:shape node=x] x"));
  REQUIRE_FALSE(decode_error("[tensord:shape at=nocolon] x"));
  REQUIRE_FALSE(decode_error("[tensord:shape bogus=1] x"));
  REQUIRE_FALSE(decode_error("[tensord:shape"));
}

TEST_CASE("kj exceptions carry the encoding both ways") {
  Error e(ErrorCode::Quota, "too many tensors", 2, "full", {});
  kj::Exception ex = to_kj_exception(e);
  REQUIRE(ex.getType() == kj::Exception::Type::FAILED);
  require_same(from_kj_exception(ex), e);

  kj::Exception lost(kj::Exception::Type::DISCONNECTED, __FILE__, __LINE__,
                     kj::heapString("Peer disconnected."));
  REQUIRE(from_kj_exception(lost).code() == ErrorCode::Cancelled);
  REQUIRE(from_kj_exception(lost).message() == "the connection was lost: Peer disconnected.");
  kj::Exception other(kj::Exception::Type::FAILED, __FILE__, __LINE__, kj::heapString("boom"));
  Error unknown = from_kj_exception(other);
  REQUIRE(unknown.code() == ErrorCode::Internal);
  REQUIRE(unknown.message() == "boom");
}

}  // namespace
}  // namespace tensord::protocol
