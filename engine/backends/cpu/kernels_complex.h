// Issue 4: complex64/complex128 kernels (kernels_complex.cpp) and the FFT (kernels_fft.cpp).
#pragma once

#include <memory>
#include <mutex>
#include <span>

#include "engine/backends/cpu/kernels.h"

namespace tensord::cpu {

struct MatmulProblem;

// Whether a node reads or writes a complex value, or is one of the complex-only ops (real,
// imag, angle, conj, complex): then run_complex runs it, never the real-typed kernels.
bool involves_complex(const ir::Node& node, std::span<const TensorValue> inputs,
                      const TensorValue& out);
// cast, full, neg/exp/log/sqrt/abs/conj/real/imag/angle, add/sub/mul/div/eq/ne, complex,
// where, sum/prod with complex operands.
void run_complex(const KernelContext& ctx, const ir::Node& node,
                 std::span<const TensorValue> inputs, const TensorValue& out);
// cast_into's path when either side is complex.
void cast_complex_into(const KernelContext& ctx, const Operand& src, const Operand& dst);
// A blocked complex64/complex128 matmul on operands of the output's dtype; conj_a/conj_b read
// A/B conjugated (conj views folded into the product).
void matmul_complex(const KernelContext& ctx, const MatmulProblem& p, bool conj_a, bool conj_b);

// The FFTs (fft_c2c, fft_r2c, fft_c2r) through FFTW. FFTW's planner is not thread-safe, so the
// backend owns one FftPlanner whose mutex guards every plan creation and destruction (execution
// of a plan is thread-safe and runs unlocked). Plans use FFTW_ESTIMATE: no timing runs, and the
// plan depends only on sizes and strides.
bool is_fft(ir::Op op);
class FftPlanner {
 public:
  void run(const KernelContext& ctx, const ir::Node& node, const TensorValue& in,
           const TensorValue& out);

 private:
  std::mutex planner_mutex_;
};

}  // namespace tensord::cpu
