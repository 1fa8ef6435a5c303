// The cuFFT / cuSOLVER families without a GPU: every NVRTC source they launch compiles for
// sm_90 with the kernel cache's options and has each entry point the host code asks for; the
// FFT staging (fft_plan.h) and the layouts the solver family hands to cuSOLVER.
#include <catch2/catch.hpp>

#include <cmath>
#include <optional>
#include <string>

#include "engine/backends/cuda/cuda_kernel_cache.h"
#include "engine/backends/cuda/fft_plan.h"
#include "engine/backends/cuda/fft_strided_copy.h"
#include "engine/backends/cuda/nvrtc_compiler.h"
#include "engine/backends/cuda/solver_kernels.h"
#include "engine/backends/cuda/solver_layout.h"

namespace tensord::cuda::test {
namespace {

using ir::Attr;
using ir::Attrs;
using ir::DType;
using ir::Op;
using Ints = std::vector<int64_t>;

NvrtcOutput compile(const std::string& source, const std::string& name) {
  NvrtcRequest request;
  request.source = source;
  request.name = name;
  request.arch = 90;
  request.cubin = true;
  request.options = CudaKernelCacheOptions{}.options;
  return nvrtc_compile(request);
}

// An extern "C" entry point's name is in the CUBIN's symbol table, NUL-terminated.
bool has_symbol(const std::string& image, const std::string& name) {
  return image.find(std::string("\0", 1) + name + std::string("\0", 1)) != std::string::npos;
}

TEST_CASE("the strided copy kernel compiles with every (source, destination) entry point") {
  const NvrtcOutput out = compile(strided_copy_source(), "fft_strided_copy.cu");
  REQUIRE(out.image.compare(0, 4,
                            "\x7f"
                            "ELF") == 0);
  int pairs = 0;
  for (DType s : {DType::Float16, DType::BFloat16, DType::Float32, DType::Float64, DType::Complex64,
                  DType::Complex128}) {
    for (DType d : {DType::Float32, DType::Float64, DType::Complex64, DType::Complex128}) {
      REQUIRE(strided_copy_supports(s, d));
      INFO(strided_copy_kernel_name(s, d));
      CHECK(has_symbol(out.image, strided_copy_kernel_name(s, d)));
      ++pairs;
    }
  }
  CHECK(pairs == 24);
  CHECK_FALSE(strided_copy_supports(DType::Int32, DType::Float32));
  CHECK_FALSE(strided_copy_supports(DType::Float32, DType::Float16));
  CHECK(strided_copy_kernel_name(DType::Float16, DType::Complex64) == "copy_float16_complex64");
}

TEST_CASE("the solver kernels compile with a float32 and a float64 entry point each") {
  const NvrtcOutput out = compile(solver_kernels_source(), "solver_kernels.cu");
  REQUIRE(out.image.compare(0, 4,
                            "\x7f"
                            "ELF") == 0);
  const std::vector<std::string> names = solver_kernel_names();
  CHECK(names.size() == 20);  // ten kernels (has_nan: det, slogdet), two dtypes each
  for (const std::string& name : names) {
    INFO(name);
    CHECK(has_symbol(out.image, name));
  }
}

TEST_CASE("permuted strides place the listed dims outermost first") {
  CHECK(permuted_strides({2, 3, 4}, {0, 1, 2}) == Ints{12, 4, 1});
  CHECK(permuted_strides({2, 3, 4}, {1, 2, 0}) == Ints{1, 8, 2});
  CHECK(permuted_strides({2, 3, 4}, {2, 0, 1}) == Ints{3, 1, 6});
  CHECK(permuted_strides({}, {}).empty());
}

Attrs fft_attrs(Ints axes, std::optional<Ints> s = std::nullopt, int64_t norm = 0,
                bool inverse = false) {
  Attrs a{{Attr::axes, axes}};
  if (s) a.set(Attr::shape, *s);
  if (norm) a.set(Attr::fft_norm, norm);
  if (inverse) a.set(Attr::inverse, true);
  return a;
}

TEST_CASE("a c2c over the innermost axis is one batched in-place stage") {
  const FftPlanSpec p = plan_fft(Op::fft_c2c, fft_attrs({-1}), {3, 10}, {3, 10});
  REQUIRE(p.stages.size() == 1);
  const FftStage& s = p.stages[0];
  CHECK(s.kind == FftKind::C2C);
  CHECK_FALSE(s.inverse);
  CHECK(s.axes == std::vector<int>{1});
  CHECK(s.lengths == Ints{10});
  CHECK(s.order == std::vector<int>{0, 1});
  CHECK(s.batch == 3);
  CHECK(p.scale == 1);
  CHECK(fft_plan_key(s, false) == "c2c f32 n=10 batch=3");
  CHECK(fft_plan_key(s, true) == "c2c f64 n=10 batch=3");
}

TEST_CASE("an outer axis is moved innermost by the stage's layout; padding and norms") {
  const FftPlanSpec p = plan_fft(Op::fft_c2c, fft_attrs({0}, Ints{8}, 1, true), {6, 5}, {8, 5});
  CHECK(p.padded_shape == ir::Shape{8, 5});
  REQUIRE(p.stages.size() == 1);
  CHECK(p.stages[0].order == std::vector<int>{1, 0});
  CHECK(p.stages[0].batch == 5);
  CHECK(p.stages[0].inverse);
  CHECK(p.scale == Approx(1 / std::sqrt(8.0)));
  CHECK(plan_fft(Op::fft_c2c, fft_attrs({0}, std::nullopt, 0, true), {4}, {4}).scale == 0.25);
  CHECK(plan_fft(Op::fft_c2c, fft_attrs({0}, std::nullopt, 2), {4}, {4}).scale == 0.25);
  CHECK(plan_fft(Op::fft_c2c, fft_attrs({0}, std::nullopt, 2, true), {4}, {4}).scale == 1);
}

TEST_CASE("more than three axes split into stages of at most three; length-1 axes drop out") {
  const FftPlanSpec p =
      plan_fft(Op::fft_c2c, fft_attrs({0, 1, 2, 3, 4}), {2, 3, 1, 4, 5}, {2, 3, 1, 4, 5});
  REQUIRE(p.stages.size() == 2);
  CHECK(p.stages[0].axes == std::vector<int>{0, 1, 3});
  CHECK(p.stages[0].order == std::vector<int>{2, 4, 0, 1, 3});
  CHECK(p.stages[0].batch == 5);
  CHECK(p.stages[1].axes == std::vector<int>{4});
  CHECK(p.stages[1].batch == 24);
  const FftPlanSpec one = plan_fft(Op::fft_c2c, fft_attrs({0}), {1}, {1});
  CHECK(one.stages.empty());
}

TEST_CASE("r2c runs its real stage over the last axis and up to two before it") {
  const FftPlanSpec p = plan_fft(Op::fft_r2c, fft_attrs({2, 0}, Ints{6, 3}), {3, 4, 5}, {2, 4, 6});
  CHECK(p.padded_shape == ir::Shape{3, 4, 6});
  REQUIRE(p.stages.size() == 1);
  const FftStage& s = p.stages[0];
  CHECK(s.kind == FftKind::R2C);
  CHECK(s.axes == std::vector<int>{2, 0});
  CHECK(s.lengths == Ints{6, 3});
  CHECK(s.in_shape == ir::Shape{3, 4, 6});
  CHECK(s.out_shape == ir::Shape{2, 4, 6});  // the last axis named (0) keeps n/2 + 1
  CHECK(s.order == std::vector<int>{1, 2, 0});
  CHECK(s.batch == 4);
  CHECK(fft_plan_key(s, false) == "r2c f32 n=6x3 batch=4");

  const FftPlanSpec four =
      plan_fft(Op::fft_r2c, fft_attrs({0, 1, 2, 3}), {2, 3, 4, 6}, {2, 3, 4, 4});
  REQUIRE(four.stages.size() == 2);
  CHECK(four.stages[0].kind == FftKind::R2C);
  CHECK(four.stages[0].axes == std::vector<int>{1, 2, 3});
  CHECK(four.stages[1].kind == FftKind::C2C);
  CHECK(four.stages[1].axes == std::vector<int>{0});
  CHECK(four.stages[1].in_shape == ir::Shape{2, 3, 4, 4});

  // A last axis of length 1: a c2c of the cast input.
  const FftPlanSpec unit = plan_fft(Op::fft_r2c, fft_attrs({0, 1}), {5, 1}, {5, 1});
  REQUIRE(unit.stages.size() == 1);
  CHECK(unit.stages[0].kind == FftKind::C2C);
  CHECK(unit.stages[0].axes == std::vector<int>{0});
}

TEST_CASE("c2r transforms the other axes first, then a 1-D c2r that drops bins' imaginary parts") {
  const FftPlanSpec p =
      plan_fft(Op::fft_c2r, fft_attrs({0, 2}, Ints{5, 7}, 2), {3, 4, 5}, {5, 4, 7});
  CHECK(p.padded_shape == ir::Shape{5, 4, 4});
  REQUIRE(p.stages.size() == 2);
  CHECK(p.stages[0].kind == FftKind::C2C);
  CHECK(p.stages[0].inverse);
  CHECK(p.stages[0].axes == std::vector<int>{0});
  CHECK(p.stages[1].kind == FftKind::C2R);
  CHECK(p.stages[1].axes == std::vector<int>{2});
  CHECK(p.stages[1].lengths == Ints{7});
  CHECK(p.stages[1].in_shape == ir::Shape{5, 4, 4});
  CHECK(p.stages[1].out_shape == ir::Shape{5, 4, 7});
  CHECK(p.stages[1].batch == 20);
  CHECK(p.herm_dim == 2);
  CHECK(p.herm_n == 7);
  CHECK(p.scale == 1);  // forward norm: the inverse is unscaled

  const FftPlanSpec d = plan_fft(Op::fft_c2r, fft_attrs({-1}), {2, 5}, {2, 8});
  REQUIRE(d.stages.size() == 1);
  CHECK(d.stages[0].lengths == Ints{8});
  CHECK(d.scale == 0.125);

  // Output length 1: nothing left but the real part of the input (a copy).
  const FftPlanSpec one = plan_fft(Op::fft_c2r, fft_attrs({0}, Ints{1}, 1), {1}, {1});
  CHECK(one.stages.empty());
}

}  // namespace
}  // namespace tensord::cuda::test

namespace tensord::cuda::test {
namespace {

TEST_CASE("batch views broadcast leading dims with zero strides and transpose the core") {
  // (3, 4) against a batch (2, 5): both batch dims broadcast.
  DeviceView v = batch_view(nullptr, DType::Float32, {3, 4}, {4, 1}, {2, 5}, 2, false);
  CHECK(v.shape == ir::Shape{2, 5, 3, 4});
  CHECK(v.strides == Ints{0, 0, 4, 1});
  // (1, 3, 3) against (4, 3): the size-1 dim broadcasts; transposed core.
  v = batch_view(nullptr, DType::Float64, {1, 3, 3}, {9, 3, 1}, {4}, 2, true);
  CHECK(v.shape == ir::Shape{4, 3, 3});
  CHECK(v.strides == Ints{0, 1, 3});
  // A batch of vectors (2, 4) against (2,): its own batch dim keeps its stride.
  v = batch_view(nullptr, DType::Float32, {2, 4}, {4, 1}, {2}, 1, false);
  CHECK(v.shape == ir::Shape{2, 4});
  CHECK(v.strides == Ints{4, 1});
  // A permuted (non-contiguous) input keeps its strides.
  v = batch_view(nullptr, DType::Float32, {5, 5}, {1, 5}, {}, 2, true);
  CHECK(v.shape == ir::Shape{5, 5});
  CHECK(v.strides == Ints{5, 1});
}

// A = U_A S Vh_A from gesvd's outputs on a host "device": check the index maps on a matrix
// whose factors are known. For a wide A (n >= m) gesvd factors A^T = U_c S V_c^T, so U_A(i, l)
// must read V_c(i, l) from VT and Vh_A(l, j) = U_c(j, l) from U.
TEST_CASE("svd layouts: wide matrices factor A^T, tall ones a transposed copy") {
  const SvdLayout wide = svd_layout(2, 3, true, true);
  CHECK_FALSE(wide.transpose_input);
  CHECK(wide.rows == 3);
  CHECK(wide.cols == 2);
  CHECK(wide.k == 2);
  CHECK(wide.jobu == 'A');
  CHECK(wide.ldu == 3);
  CHECK(wide.ldvt == 2);
  CHECK(wide.u_elems == 9);
  CHECK(wide.vt_elems == 4);
  CHECK(wide.ua_in_vt);
  CHECK(wide.u_cols == 2);
  CHECK(wide.vh_rows == 3);
  // VT column-major (ldvt 2): VT(l, i) at i * 2 + l; V_c(i, l) = VT(l, i) -> i * us0 + l * us1.
  CHECK(wide.us0 == 2);
  CHECK(wide.us1 == 1);
  // U column-major (ldu 3): U_c(j, l) at l * 3 + j = Vh_A(l, j) -> l * vs0 + j * vs1.
  CHECK(wide.vs0 == 3);
  CHECK(wide.vs1 == 1);

  const SvdLayout tall = svd_layout(5, 3, true, false);
  CHECK(tall.transpose_input);
  CHECK(tall.rows == 5);
  CHECK(tall.cols == 3);
  CHECK(tall.jobu == 'S');
  CHECK(tall.u_elems == 15);
  CHECK(tall.vt_elems == 9);
  CHECK_FALSE(tall.ua_in_vt);
  CHECK(tall.us0 == 1);  // U(i, l) at l * 5 + i
  CHECK(tall.us1 == 5);
  CHECK(tall.vs0 == 1);  // VT(l, j) at j * 3 + l
  CHECK(tall.vs1 == 3);
  CHECK(tall.u_cols == 3);
  CHECK(tall.vh_rows == 3);

  const SvdLayout values = svd_layout(4, 4, false, false);
  CHECK(values.jobu == 'N');
  CHECK(values.jobvt == 'N');
  CHECK(values.u_elems == 0);
  CHECK(values.k == 4);
}

// The wide layout on an explicit 2 x 3 example: A = [[3, 0, 0], [0, 2, 0]] has U_A = I,
// S = (3, 2), Vh_A = the first two rows of I (up to signs). gesvd of A^T (3 x 2): U_c = I3,
// V_c = I2. Reading through the layout's maps gives those factors back.
TEST_CASE("the wide svd layout's index maps recover A's factors from gesvd(A^T)") {
  const SvdLayout l = svd_layout(2, 3, true, true);
  const double u_c[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};  // column-major I3
  const double vt[4] = {1, 0, 0, 1};                  // V_c^T = I2
  const double s[2] = {3, 2};
  const double* ua = l.ua_in_vt ? vt : u_c;
  const double* vh = l.ua_in_vt ? u_c : vt;
  const double a[2][3] = {{3, 0, 0}, {0, 2, 0}};
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 3; ++j) {
      double r = 0;
      for (int k = 0; k < 2; ++k) r += ua[i * l.us0 + k * l.us1] * s[k] * vh[k * l.vs0 + j * l.vs1];
      CHECK(r == a[i][j]);
    }
  }
}

}  // namespace
}  // namespace tensord::cuda::test
