// The one copy kernel of the FFT and linear algebra families: a strided view in, a strided
// destination out, with what those families need on the way (cast between the floating and
// complex dtypes, zero padding where the source is shorter, a scale, one triangle of the last
// two dims, the imaginary parts of bins 0 and n/2 dropped for c2r). cuFFT and cuSOLVER want
// contiguous (column-major) operands: every relayout, transpose and batch broadcast before or
// after a library call is one launch of this kernel.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/backends/cuda/cuda_context.h"
#include "engine/ir/dtype.h"
#include "engine/ir/shape.h"

namespace tensord::cuda {

// A typed window on device memory: `data` points at the first element; strides count elements
// (0 broadcasts, negative flips).
struct DeviceView {
  const void* data = nullptr;
  ir::DType dtype = ir::DType::Float32;
  ir::Shape shape;
  std::vector<int64_t> strides;
};

struct CopyOptions {
  double scale = 1.0;
  // 0: every element; 1: keep i >= j of the last two dims (lower), 2: keep j >= i (upper);
  // the rest is written as zero.
  int triangle = 0;
  // >= 0: the imaginary part is dropped where the index along this dim is 0, or herm_n / 2
  // for an even herm_n (what FFTW and NumPy ignore of a c2r input).
  int herm_dim = -1;
  int64_t herm_n = 0;
};

// dst[index] = convert(src[index]) * scale over every index of `shape`; an index outside
// src.shape (on any dim) reads zero. `dst_strides` (elements, one per dim of `shape`) place the
// result; `dst` has dtype `dst_dtype`. src.shape and src.strides have `shape`'s rank.
// Sources: float16, bfloat16, float32, float64, complex64, complex128; destinations float32,
// float64, complex64, complex128 (complex -> real keeps the real part). In place (src.data ==
// dst with the same strides) is allowed: each element is read and written by one thread.
void strided_copy(CudaContext& ctx, const DeviceView& src, const ir::Shape& shape, void* dst,
                  ir::DType dst_dtype, const std::vector<int64_t>& dst_strides,
                  const CopyOptions& options = {});

// The CUDA C of the copy kernel (one text: every (source, destination) pair is an entry point)
// and the entry point for a pair; the unit test compiles it.
const std::string& strided_copy_source();
std::string strided_copy_kernel_name(ir::DType src, ir::DType dst);
// Whether strided_copy handles this pair.
bool strided_copy_supports(ir::DType src, ir::DType dst);

// Row-major strides of `shape` with the dims laid out in the order `order` (order[0] outermost):
// the strides, indexed by the original dims, of a contiguous array of the permuted shape.
std::vector<int64_t> permuted_strides(const ir::Shape& shape, const std::vector<int>& order);

}  // namespace tensord::cuda
