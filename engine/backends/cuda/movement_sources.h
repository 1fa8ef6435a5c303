// The CUDA C sources of the creation, movement and index families (creation_family.cpp,
// movement_family.cpp, index_family.cpp), as text for NVRTC through CudaKernelCache. Each source
// serves every dtype and shape: element types are chosen by item size (copies) or by a runtime
// dtype code (conversions), and shapes and strides are kernel arguments, so the cache compiles a
// handful of texts per process. tests/unit/cuda compiles every one of them.
#pragma once

#include <string>
#include <vector>

namespace tensord::cuda {

struct KernelSource {
  std::string name;                  // for messages: "td_copy.cu"
  const std::string* text;           // the source (static storage)
  std::vector<std::string> entries;  // its extern "C" kernels
};

// Shared by the three families: the prelude every source starts with (types, 16-bit float
// rounding as engine/ir/half.h, the cast rules of docs/ops.md, strided offsets).
const std::string& movement_prelude();

// Strided copy by item size (1, 2, 4, 8, 16 bytes, with an xor mask that conjugates complex
// items), the tiled transpose, and the pattern fill.
const std::string& copy_kernel_source();
// Strided copy between any two dtypes (the cast rules), dtype codes as arguments.
const std::string& convert_kernel_source();
// arange and the Philox rand/randn of engine/ir/philox.h.
const std::string& creation_kernel_source();
// gather/index_select by item size.
const std::string& gather_kernel_source();
// Index checks, scatter, scatter_add, scatter_reduce, index_put, searchsorted (on 8-byte
// float64/int64 accumulators).
const std::string& index_kernel_source();

// The data-dependent ops (dynamic_family.cpp): compaction of selected elements by chunks
// (counts, then writes at the scanned offsets) and repeat_interleave's row copies.
// dynamic_sources.cpp.
const std::string& dynamic_kernel_source();

// What each family may load.
std::vector<KernelSource> creation_kernel_sources();
std::vector<KernelSource> movement_kernel_sources();
std::vector<KernelSource> index_kernel_sources();
std::vector<KernelSource> dynamic_kernel_sources();

}  // namespace tensord::cuda
