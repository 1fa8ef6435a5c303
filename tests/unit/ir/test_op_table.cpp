// The op table's name lookup (op_from_name: a binary search over the names, which every wire
// node goes through) against the table itself.
#include <string>

#include "tests/unit/ir/ir_test_util.h"

namespace tensord::ir {
namespace {

TEST_CASE("every op is found by its name, and nothing else is") {
  for (const OpInfo& info : all_ops()) {
    INFO(info.name);
    const std::optional<Op> op = op_from_name(info.name);
    REQUIRE(op.has_value());
    CHECK(*op == info.op);
    // Near misses (a prefix, the name with one more letter: erfc + x is erfcx) find only an op
    // of exactly that name; another case finds none.
    for (const std::string& near :
         {std::string(info.name.substr(0, info.name.size() - 1)), std::string(info.name) + "x"}) {
      const std::optional<Op> other = op_from_name(near);
      CHECK((!other || op_info(*other).name == near));
    }
    std::string upper(info.name);
    upper[0] = static_cast<char>(upper[0] - 'a' + 'A');
    CHECK_FALSE(op_from_name(upper).has_value());
  }
  CHECK_FALSE(op_from_name("").has_value());
  CHECK_FALSE(op_from_name("zzzz").has_value());  // past the last name
  CHECK_FALSE(op_from_name("AAAA").has_value());  // before the first
}

}  // namespace
}  // namespace tensord::ir
