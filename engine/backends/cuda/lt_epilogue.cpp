#include "engine/backends/cuda/lt_epilogue.h"

namespace tensord::cuda {

std::optional<LtEpilogue> lt_epilogue(const engine::MatmulEpilogue& e) {
  using engine::EpilogueOp;
  const auto& s = e.stages;
  if (s.empty() || s.size() > 2) return std::nullopt;
  LtEpilogue out;
  size_t next = 0;
  if (s[0].op == EpilogueOp::BiasRow) {
    out.bias = true;
    out.bias_input = s[0].input;
    next = 1;
  }
  if (next == s.size()) {
    if (!out.bias) return std::nullopt;
    out.kind = LtEpilogueKind::Bias;
    return out;
  }
  if (next + 1 != s.size()) return std::nullopt;  // two stages after no bias
  switch (s[next].op) {
    case EpilogueOp::Relu:
      out.kind = out.bias ? LtEpilogueKind::ReluBias : LtEpilogueKind::Relu;
      return out;
    case EpilogueOp::GeluTanh:
      out.kind = out.bias ? LtEpilogueKind::GeluBias : LtEpilogueKind::Gelu;
      return out;
    default:
      return std::nullopt;
  }
}

}  // namespace tensord::cuda
