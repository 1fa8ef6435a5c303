// max-autotune's launch timing (loop_ir_launch.cpp) with the kernels run on the host
// (movement_emulation.cpp; its events read the host clock): a fused group's launch is tuned
// once, its decision file written, a second tuning object reads it without timing, and every
// run computes the same values.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "engine/backends/cuda/loop_ir_launch.h"
#include "tests/unit/cuda/emulated_harness.h"
#include "tests/unit/cuda/loop_kernels.h"

namespace tensord::cuda::test {
namespace {

using engine::TensorValue;
using ir::DType;

class TuneDir {
 public:
  TuneDir() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "td-cuda-emu-tune-XXXXXX").string();
    if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~TuneDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

TensorValue floats(int64_t n) {
  ir::TensorType type{DType::Float32, ir::Shape{n}};
  return TensorValue::contiguous(h().cpu.allocate(type.nbytes()), type);
}

}  // namespace

TEST_CASE("emulated: max-autotune times a fused group once and a second backend reads it") {
  TuneDir dir;
  codegen::test::KernelBuilder b(1, 0);
  const uint32_t x = b.load(DType::Float32);
  b.out(b.op(ir::Op::add, {x, x}, DType::Float32));
  engine::FusedGroup group;
  group.kernel = b.kernel();
  group.launch.sizes = {5000};
  group.launch.strides = {1, 1};
  group.autotune = true;
  TensorValue in = floats(5000), out = floats(5000);
  for (int64_t i = 0; i < 5000; ++i) in.data<float>()[i] = 0.5f * static_cast<float>(i % 97);
  void* ptrs[] = {in.raw(), out.raw()};
  const auto doubled = [&] {
    for (int64_t i = 0; i < 5000; ++i) {
      if (out.data<float>()[i] != 2 * in.data<float>()[i]) return false;
    }
    return true;
  };
  const LoopEntry kernel = loop_kernel(h().ctx, group.kernel);

  CudaLaunchTuning first(dir.path(), "emulated device");
  const TuneLaunch tune{first, "td_emulated", true};
  launch_loop_kernel(h().ctx, kernel, group, ptrs, "a tuned group", &tune);
  CHECK(doubled());
  CHECK(first.stats().measured == 1);
  const std::string key = first.key("td_emulated", 5000, 1);
  REQUIRE(first.find(key).has_value());
  CHECK(std::filesystem::exists(first.path(key)));

  // A capture measures nothing: it takes the decision on disk.
  CudaLaunchTuning second(dir.path(), "emulated device");
  std::fill_n(out.data<float>(), 5000, -1.0f);
  const TuneLaunch capture{second, "td_emulated", false};
  launch_loop_kernel(h().ctx, kernel, group, ptrs, "a captured group", &capture);
  CHECK(doubled());
  CHECK(second.stats().measured == 0);
  CHECK(second.stats().from_disk == 1);

  // Nothing known and nothing to be timed: the default, and no decision made.
  CudaLaunchTuning empty("", "emulated device");
  std::fill_n(out.data<float>(), 5000, -1.0f);
  const TuneLaunch nothing{empty, "td_emulated", false};
  launch_loop_kernel(h().ctx, kernel, group, ptrs, "a captured group", &nothing);
  CHECK(doubled());
  CHECK(empty.stats().measured == 0);
  CHECK_FALSE(empty.find(key).has_value());
}

}  // namespace tensord::cuda::test
