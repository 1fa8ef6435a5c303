// Which matmul epilogues map onto cuBLASLt's (engine/backends/cuda/lt_epilogue.h); the rest
// run unfused on CUDA. Plain C++: runs without a GPU.
#include <catch2/catch.hpp>

#include "engine/backends/cuda/lt_epilogue.h"

using tensord::cuda::lt_epilogue;
using tensord::cuda::LtEpilogueKind;
using tensord::engine::EpilogueOp;
using tensord::engine::EpilogueStage;
using tensord::engine::MatmulEpilogue;

namespace {

MatmulEpilogue chain(std::initializer_list<EpilogueOp> ops) {
  MatmulEpilogue e;
  uint32_t input = 2;
  for (EpilogueOp op : ops) {
    EpilogueStage s;
    s.op = op;
    if (op == EpilogueOp::BiasRow || op == EpilogueOp::Residual) s.input = input++;
    e.stages.push_back(s);
  }
  return e;
}

}  // namespace

TEST_CASE("bias, relu and tanh gelu map onto cuBLASLt epilogues", "[cuda][epilogue]") {
  const struct {
    MatmulEpilogue e;
    LtEpilogueKind kind;
    bool bias;
  } cases[] = {
      {chain({EpilogueOp::BiasRow}), LtEpilogueKind::Bias, true},
      {chain({EpilogueOp::BiasRow, EpilogueOp::Relu}), LtEpilogueKind::ReluBias, true},
      {chain({EpilogueOp::BiasRow, EpilogueOp::GeluTanh}), LtEpilogueKind::GeluBias, true},
      {chain({EpilogueOp::Relu}), LtEpilogueKind::Relu, false},
      {chain({EpilogueOp::GeluTanh}), LtEpilogueKind::Gelu, false},
  };
  for (const auto& c : cases) {
    const auto lt = lt_epilogue(c.e);
    REQUIRE(lt.has_value());
    CHECK(lt->kind == c.kind);
    CHECK(lt->bias == c.bias);
    if (c.bias) CHECK(lt->bias_input == 2);
  }
}

TEST_CASE("other epilogues stay unfused on CUDA", "[cuda][epilogue]") {
  // cuBLASLt's GELU is the tanh form; the rest have no cuBLASLt epilogue or come in an order
  // cuBLASLt does not apply (its bias goes first).
  for (const MatmulEpilogue& e :
       {chain({EpilogueOp::BiasRow, EpilogueOp::GeluErf}), chain({EpilogueOp::Residual}),
        chain({EpilogueOp::BiasRow, EpilogueOp::Silu}), chain({EpilogueOp::Sigmoid}),
        chain({EpilogueOp::Relu, EpilogueOp::BiasRow}),
        chain({EpilogueOp::BiasRow, EpilogueOp::Relu, EpilogueOp::Linear}), chain({})}) {
    CHECK_FALSE(lt_epilogue(e).has_value());
  }
}
