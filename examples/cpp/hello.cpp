// The first program to run against a tensord daemon:
//   build/bin/tensord-example-hello [ADDRESS]      (default: tensord::default_address())
#include <tensord/client.h>

#include <cstdio>
#include <exception>
#include <vector>

int main(int argc, char** argv) {
  try {
    auto s = argc > 1 ? tensord::connect(argv[1]) : tensord::connect();
    auto a = s.from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
    auto w = s.full({3, 4}, 0.5f);  // dtype follows the value: float32
    auto y = tensord::relu(tensord::matmul(a, w) + 1.0f).sum({1});
    std::vector<float> out = y.to_vector<float>();  // the sync point: one round trip
    std::printf("y =");
    for (float v : out) std::printf(" %g", v);
    std::printf("\n");
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tensord-example-hello: %s\n", e.what());
    return 1;
  }
}
