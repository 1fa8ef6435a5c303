// cuBLASLt epilogues for a matmul epilogue (engine/plan/epilogue.h): the chains cuBLASLt
// applies as it writes the product, or none (the backend then runs the matmul and the chain's
// generated kernel). Plain C++, no CUDA headers: tested without a GPU.
//
// What maps: bias row, relu, gelu (tanh form), bias row then relu or gelu (tanh form), each on
// a float32 product. cuBLASLt's GELU epilogue is the tanh approximation, so exact (erf) gelu
// is not mapped; neither are the residual, silu, sigmoid, tanh and linear stages (cuBLASLt has
// no epilogue for them: the generated kernel runs them).
#pragma once

#include <cstdint>
#include <optional>

#include "engine/plan/epilogue.h"

namespace tensord::cuda {

enum class LtEpilogueKind : uint8_t { Bias, Relu, ReluBias, Gelu, GeluBias };

struct LtEpilogue {
  LtEpilogueKind kind = LtEpilogueKind::Bias;
  bool bias = false;        // whether it reads a bias vector
  uint32_t bias_input = 0;  // then: its index in the step's inputs (EpilogueStage::input)
};

std::optional<LtEpilogue> lt_epilogue(const engine::MatmulEpilogue& e);

}  // namespace tensord::cuda
