// Writes every CUDA C source of the reduce, scan and sort families into a folder (argv[1]) as
// <family>_<dtype>.cu and sort_network.cu, for sort_emulation_*.cpp to compile as host C++.
#include <fstream>
#include <iostream>

#include "engine/backends/cuda/sort_sources.h"

int main(int argc, char** argv) {
  using namespace tensord;
  if (argc != 2) {
    std::cerr << "usage: " << argv[0] << " <folder>\n";
    return 2;
  }
  const std::string dir = argv[1];
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream out(dir + "/" + name, std::ios::trunc);
    out << text;
    if (!out) {
      std::cerr << "cannot write " << dir << "/" << name << "\n";
      std::exit(1);
    }
  };
  for (ir::DType t : cuda::sort_family_dtypes()) {
    const std::string n(ir::name(t));
    write("reduce_" + n + ".cu", cuda::reduce_source(t));
    write("scan_" + n + ".cu", cuda::scan_source(t));
    if (ir::is_complex(t)) continue;
    write("sort_" + n + ".cu", cuda::sort_source(t));
  }
  write("sort_network.cu", cuda::sort_network_source());
  return 0;
}
