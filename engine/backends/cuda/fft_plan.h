// How an fft_c2c / fft_r2c / fft_c2r node maps onto cuFFT, decided on the host (no GPU needed,
// unit-tested). cuFFT transforms at most 3 dims, contiguous and innermost, batched by one
// stride; a node may name any axes in any order. So the transform is cut into stages; each
// stage lays the data out contiguously with its axes innermost (one strided copy, which also
// casts, pads or truncates to the transform lengths) and runs one batched cuFFT plan over them.
// The DFT is separable, so the order of the stages does not change the result:
// - c2c: the axes of length > 1 in groups of up to 3 (a length-1 DFT is the identity);
// - r2c: first one r2c stage over the last axis with up to 2 axes before it, then c2c stages;
// - c2r: c2c inverse stages over every axis but the last, then a 1-D c2r stage over the last
//   whose input copy drops the imaginary parts of bins 0 and n/2 (the reference ignores them
//   after the other axes are transformed, which only a 1-D c2r at the end reproduces).
// A last axis of length 1 turns r2c / c2r into c2c plus the cast (r2c: real -> complex; c2r:
// the real part at the end).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/backends/cuda/fft_strided_copy.h"
#include "engine/ir/graph.h"

namespace tensord::cuda {

enum class FftKind { C2C, R2C, C2R };

struct FftStage {
  FftKind kind = FftKind::C2C;
  bool inverse = false;
  std::vector<int> axes;         // dims of the logical shape, cuFFT's dims in this order
  std::vector<int64_t> lengths;  // the transform length of each (c2r: the real output length)
  std::vector<int> order;        // layout of the stage's input: other dims, then `axes`
  ir::Shape in_shape;            // logical shape of the stage's input
  ir::Shape out_shape;           // and of its output (r2c/c2r change the last axis)
  int64_t batch = 1;             // product of the dims not in `axes`
};

struct FftPlanSpec {
  ir::Op op = ir::Op::fft_c2c;
  bool inverse = false;
  std::vector<int> axes;         // normalised, in the node's order
  std::vector<int64_t> lengths;  // transform length per axis
  ir::Shape padded_shape;        // the input padded/truncated: the first stage's input
  ir::Shape out_shape;           // the node's output
  std::vector<FftStage> stages;  // may be empty (every length 1: a copy)
  double scale = 1;              // applied once, at the end
  int herm_dim = -1;             // c2r: the dim whose bins 0 and n/2 lose their imaginary part
  int64_t herm_n = 0;
};

// The stages of a node whose input has shape `in_shape`, output shape `out_shape`; attrs as
// docs/ops.md (axes, shape, fft_norm, inverse).
FftPlanSpec plan_fft(ir::Op op, const ir::Attrs& attrs, const ir::Shape& in_shape,
                     const ir::Shape& out_shape);

// The cuFFT plan a stage needs, as a cache key: kind, direction-free (the direction is an
// argument of cufftExec), precision, lengths and batch. "c2c f64 n=4x6 batch=3".
std::string fft_plan_key(const FftStage& stage, bool double_precision);

// What running a plan needs from a device (fft_family.cpp: the caching allocator, the strided
// copy kernel, cuFFT; the unit test: host memory, a host copy, a direct DFT).
class FftStageRunner {
 public:
  virtual ~FftStageRunner() = default;
  virtual void* allocate(size_t bytes) = 0;
  virtual void copy(const DeviceView& src, const ir::Shape& shape, void* dst, ir::DType dst_dtype,
                    const std::vector<int64_t>& dst_strides, const CopyOptions& options) = 0;
  // The unnormalised transform of `stage` (the direction is stage.inverse): c2c in place (in ==
  // out), r2c/c2r out of place, contiguous in the stage's layout, `stage.batch` transforms.
  virtual void transform(const FftStage& stage, void* in, void* out) = 0;
};

// Runs `spec` from `input` into the contiguous output `y` (dtype `out_t`, shape
// spec.out_shape): each stage's input copied into its layout (the first copy casts, pads and
// truncates; the user's input is never written), the transform, and the scale applied by the
// last copy. The last stage writes `y` itself when its layout is the output's (c2c: copied
// into y and transformed there; r2c/c2r: transformed into y), then scales it in place.
void run_fft_plan(const FftPlanSpec& spec, const DeviceView& input, void* y, ir::DType out_t,
                  FftStageRunner& runner);

}  // namespace tensord::cuda
