// Random graphs, most of them malformed: validation accepts a graph or refuses it with a
// tensord::Error attributed to a node, and never crashes (run under the sanitizers to see).
// Accepted graphs go through every pass, and the passes keep the graph valid.
#include "engine/ir/passes.h"
#include "tests/unit/ir/ir_test_util.h"
#include "tests/unit/ir/random_graphs.h"

namespace tensord::ir {
namespace {

using test::RandomGraphs;

TEST_CASE("random graphs are accepted or refused cleanly", "[validate][random]") {
  RandomGraphs random(20240601);
  int accepted = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    auto [inputs, g] = random.draw();
    try {
      validate(g, inputs, Limits{});
    } catch (const Error& e) {
      INFO(e.what());
      REQUIRE(e.node().has_value());
      REQUIRE(*e.node() < g.nodes.size());
      REQUIRE(e.code() != ErrorCode::Internal);
      continue;
    }
    ++accepted;
    std::vector<ValueRef> outs{ValueRef{static_cast<uint32_t>(g.nodes.size() - 1), 0}};
    validate_outputs(g, outs);
    Rewritten d = decompose(g, outs);
    Rewritten s = simplify(d.graph, d.outputs);
    for (Rewritten* r : {&d, &s}) {
      Graph copy = r->graph;
      validate(copy, inputs, Limits{});
      for (size_t i = 0; i < copy.nodes.size(); ++i)
        REQUIRE(copy.nodes[i].outputs == r->graph.nodes[i].outputs);
      REQUIRE(r->graph.type(r->outputs[0]) == g.type(outs[0]));
    }
    CHECK(canonical_form(g, outs) == canonical_form(g, outs));
  }
  // Enough graphs get through for the passes to be exercised.
  CHECK(accepted > 1000);
  WARN(accepted << " of 20000 random graphs were valid");
}

}  // namespace
}  // namespace tensord::ir
