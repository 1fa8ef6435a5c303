// Writes the neural-network family's CUDA C sources, as the kernel cache gets them, into the
// directory argv[1] with `extern "C"` removed, so that dnn_emulation_test.cpp can compile them
// as host C++ (one thread, the CUDA built-ins shimmed) and compare them with the CPU backend.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "engine/backends/cuda/dnn_kernels.h"

namespace {

void write(const char* dir, const char* file, std::string text) {
  const std::string linkage = "extern \"C\" ";
  for (size_t at = text.find(linkage); at != std::string::npos; at = text.find(linkage, at)) {
    text.erase(at, linkage.size());
  }
  const std::string path = std::string(dir) + "/" + file;
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr || std::fwrite(text.data(), 1, text.size(), f) != text.size() ||
      std::fclose(f) != 0) {
    std::fprintf(stderr, "cannot write %s\n", path.c_str());
    std::exit(1);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 2;
  }
  using tensord::ir::DType;
  const struct {
    DType dtype;
    const char* file;
  } sources[] = {{DType::Float32, "dnn_float32.inc"},
                 {DType::Float64, "dnn_float64.inc"},
                 {DType::Float16, "dnn_float16.inc"},
                 {DType::BFloat16, "dnn_bfloat16.inc"}};
  for (const auto& s : sources) {
    write(argv[1], s.file, tensord::cuda::dnn::kernel_source(s.dtype));
  }
  write(argv[1], "dnn_copy.inc", tensord::cuda::dnn::copy_source());
  return 0;
}
