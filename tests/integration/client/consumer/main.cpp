// Runs the README example against the daemon at argv[1], retrying while it starts.
#include <tensord/client.h>

#include <chrono>
#include <cstdio>
#include <optional>
#include <thread>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: consumer ADDRESS\n");
    return 2;
  }
  std::optional<tensord::Session> s;
  for (int attempt = 0; !s; ++attempt) {
    try {
      s = tensord::connect(argv[1]);
    } catch (const tensord::Error& e) {
      if (e.code() != tensord::ErrorCode::Cancelled || attempt == 200) {
        std::fprintf(stderr, "consumer: %s\n", e.what());
        return 1;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  auto a = s->from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  auto w = s->full({3, 4}, 0.5f);
  auto y = tensord::relu(tensord::matmul(a, w) + 1.0f).sum({1});
  auto out = y.to_vector<float>();
  std::printf("%g %g\n", out.at(0), out.at(1));
  return out == std::vector<float>{16, 34} ? 0 : 1;
}
