// The reduce, scan and sort families end to end on the CPU: run_reduce, run_scan and run_sort
// build their line geometry from strided views and launch their kernels, which the launch seam
// (set_launch_hook_for_tests) hands to the CPU emulation; outputs are checked against loops
// over the logical tensor. Covers the host glue (strides, offsets, axes, output layout) that
// the kernel-level emulation tests do not.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <numeric>

#include "engine/backends/cuda/cuda_ops.h"
#include "engine/backends/cuda/sort_common.h"
#include "tests/unit/cuda/sort_emulation_dispatch.h"

namespace tensord::cuda::test {
namespace {

using engine::TensorValue;
using ir::Attr;
using ir::Attrs;
using ir::DType;
using ir::Op;

class HostBuffer final : public engine::Buffer {
 public:
  explicit HostBuffer(size_t bytes) : Buffer(::operator new(std::max<size_t>(bytes, 1)), bytes) {}
  ~HostBuffer() override { ::operator delete(data()); }
};

struct Emulated {
  Emulated() {
    set_launch_hook_for_tests(
        [](const std::string& source, const char* name, dim3, dim3 block, void** args) {
          if (!emu_reduce_dispatch(source, name, block.x, args) &&
              !emu_scan_dispatch(source, name, block.x, args) &&
              !emu_sort_dispatch(source, name, block.x, args)) {
            FAIL("kernel " << name << " is not emulated for this source");
          }
        });
  }
  ~Emulated() { set_launch_hook_for_tests(nullptr); }
  CudaKernelCache cache{CudaKernelCacheOptions{}};
  FamilyStates states;
  CudaContext ctx{
      0, 90, 2, nullptr, cache, states, engine::Float32MatmulPrecision::Highest, [](size_t bytes) {
        return std::make_shared<HostBuffer>(bytes);
      }};
};

// A strided view of `values` (stored contiguously as T in a fresh buffer).
template <class T>
TensorValue view_of(const std::vector<T>& values, DType dtype, ir::Shape shape,
                    std::vector<int64_t> strides, int64_t offset) {
  auto buffer = std::make_shared<HostBuffer>(values.size() * sizeof(T));
  std::memcpy(buffer->data(), values.data(), values.size() * sizeof(T));
  TensorValue v;
  v.buffer = std::move(buffer);
  v.type = ir::TensorType{dtype, std::move(shape)};
  v.strides = std::move(strides);
  v.offset = offset;
  return v;
}

TensorValue output(DType dtype, ir::Shape shape) {
  TensorValue v;
  v.type = ir::TensorType{dtype, std::move(shape)};
  v.buffer = std::make_shared<HostBuffer>(v.type.nbytes());
  v.strides.assign(v.type.shape.size(), 1);
  for (int64_t d = static_cast<int64_t>(v.strides.size()) - 2; d >= 0; --d) {
    v.strides[d] = v.strides[d + 1] * v.type.shape[d + 1];
  }
  return v;
}

template <class T>
T at(const TensorValue& v, std::initializer_list<int64_t> index) {
  int64_t off = v.offset, d = 0;
  for (int64_t i : index) off += i * v.strides[d++];
  return static_cast<const T*>(v.buffer->data())[off];
}

ir::Node node(Op op, Attrs attrs) {
  ir::Node n;
  n.op = op;
  n.attrs = std::move(attrs);
  return n;
}

bool nan_last_less(float a, float b) {
  if (a != a) return false;
  if (b != b) return true;
  return a < b;
}

std::vector<float> tie_values(size_t n) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = i % 11 == 3 ? NAN : static_cast<float>((i * 7) % 5) - 2;
  return v;
}

TEST_CASE("sort, argsort and topk of strided views (CPU emulation of the CUDA families)") {
  Emulated emu;
  const std::vector<float> base = tie_values(35);
  // (5, 7) over a transposed buffer, and rows reversed.
  const TensorValue views[] = {view_of(base, DType::Float32, {5, 7}, {1, 5}, 0),
                               view_of(base, DType::Float32, {5, 7}, {-7, 1}, 28)};
  for (const TensorValue& x : views) {
    for (int64_t axis : {0, 1}) {
      for (bool descending : {false, true}) {
        INFO("axis " << axis << " descending " << descending << " stride " << x.strides[0]);
        const TensorValue values = output(DType::Float32, {5, 7});
        const TensorValue indices = output(DType::Int64, {5, 7});
        const TensorValue in[] = {x};
        const TensorValue out[] = {values, indices};
        REQUIRE(run_sort(emu.ctx,
                         node(Op::sort, {{Attr::axis, axis}, {Attr::descending, descending}}), in,
                         out));
        const int64_t n = axis == 0 ? 5 : 7, lines = 35 / n;
        for (int64_t line = 0; line < lines; ++line) {
          auto logical = [&](int64_t k) {
            return axis == 0 ? at<float>(x, {k, line}) : at<float>(x, {line, k});
          };
          std::vector<int64_t> ref(static_cast<size_t>(n));
          std::iota(ref.begin(), ref.end(), 0);
          std::stable_sort(ref.begin(), ref.end(), [&](int64_t a, int64_t b) {
            return descending ? nan_last_less(logical(b), logical(a))
                              : nan_last_less(logical(a), logical(b));
          });
          for (int64_t k = 0; k < n; ++k) {
            const int64_t o = axis == 0 ? k * 7 + line : line * 7 + k;
            CHECK(indices.data<int64_t>()[o] == ref[k]);
            const float got = values.data<float>()[o], want = logical(ref[k]);
            CHECK((got == want || (got != got && want != want)));
          }
        }
      }
    }
    // topk(3, largest) along axis 1: the first three of the descending order.
    const TensorValue tv = output(DType::Float32, {5, 3}), ti = output(DType::Int64, {5, 3});
    const TensorValue in[] = {x};
    const TensorValue out[] = {tv, ti};
    REQUIRE(run_sort(emu.ctx, node(Op::topk, {{Attr::k, int64_t{3}}, {Attr::axis, int64_t{1}}}), in,
                     out));
    for (int64_t line = 0; line < 5; ++line) {
      std::vector<int64_t> ref(7);
      std::iota(ref.begin(), ref.end(), 0);
      std::stable_sort(ref.begin(), ref.end(), [&](int64_t a, int64_t b) {
        return nan_last_less(at<float>(x, {line, b}), at<float>(x, {line, a}));
      });
      for (int64_t k = 0; k < 3; ++k) CHECK(ti.data<int64_t>()[line * 3 + k] == ref[k]);
    }
    // nanmedian of all elements: the lower median of the non-NaN values.
    const TensorValue med = output(DType::Float32, {});
    const TensorValue mo[] = {med};
    REQUIRE(run_sort(emu.ctx, node(Op::nanmedian, {}), in, mo));
    std::vector<float> finite;
    for (float v : base) {
      if (v == v) finite.push_back(v);
    }
    std::sort(finite.begin(), finite.end());
    CHECK(med.data<float>()[0] == finite[(finite.size() - 1) / 2]);
  }
}

TEST_CASE("scans of strided views (CPU emulation of the CUDA families)") {
  Emulated emu;
  // cumsum of int32 along a long axis (the block kernel) of a transposed (4, 300) view.
  std::vector<int32_t> base(1200);
  for (size_t i = 0; i < base.size(); ++i) base[i] = static_cast<int32_t>((i * 37) % 19) - 9;
  const TensorValue x = view_of(base, DType::Int32, {4, 300}, {1, 4}, 0);
  const TensorValue y = output(DType::Int64, {4, 300});
  const TensorValue in[] = {x};
  const TensorValue out[] = {y};
  REQUIRE(run_scan(emu.ctx, node(Op::cumsum, {{Attr::axis, int64_t{1}}}), in, out));
  for (int64_t r = 0; r < 4; ++r) {
    int64_t acc = 0;
    for (int64_t k = 0; k < 300; ++k) {
      acc += at<int32_t>(x, {r, k});
      CHECK(y.data<int64_t>()[r * 300 + k] == acc);
    }
  }
  // cummax along axis 0 of a (7, 5) transposed float view: ties move to the later position.
  const std::vector<float> fb = tie_values(35);
  const TensorValue f = view_of(fb, DType::Float32, {7, 5}, {1, 7}, 0);
  const TensorValue mv = output(DType::Float32, {7, 5}), mi = output(DType::Int64, {7, 5});
  const TensorValue fin[] = {f};
  const TensorValue fout[] = {mv, mi};
  REQUIRE(run_scan(emu.ctx, node(Op::cummax, {{Attr::axis, int64_t{0}}}), fin, fout));
  for (int64_t c = 0; c < 5; ++c) {
    int64_t best = 0;
    for (int64_t k = 0; k < 7; ++k) {
      const float v = at<float>(f, {k, c}), b = at<float>(f, {best, c});
      if (k == 0 || v != v || (b == b && v >= b)) best = k;
      CHECK(mi.data<int64_t>()[k * 5 + c] == best);
    }
  }
  // cumprod of complex128 along axis 0 of a transposed (6, 3) view: keeps its dtype.
  std::vector<std::complex<double>> cb(18);
  for (size_t i = 0; i < cb.size(); ++i) {
    cb[i] = {1.0 + 0.1 * static_cast<double>(i % 5), 0.2 * static_cast<double>(i % 3) - 0.2};
  }
  const TensorValue z = view_of(cb, DType::Complex128, {6, 3}, {1, 6}, 0);
  const TensorValue zy = output(DType::Complex128, {6, 3});
  const TensorValue zin[] = {z};
  const TensorValue zout[] = {zy};
  REQUIRE(run_scan(emu.ctx, node(Op::cumprod, {{Attr::axis, int64_t{0}}}), zin, zout));
  for (int64_t c = 0; c < 3; ++c) {
    std::complex<double> acc = 1;
    for (int64_t k = 0; k < 6; ++k) {
      acc *= at<std::complex<double>>(z, {k, c});
      CHECK(std::abs(zy.data<std::complex<double>>()[k * 3 + c] - acc) < 1e-12 * std::abs(acc));
    }
  }
}

TEST_CASE("prod and argmax of strided views (CPU emulation of the CUDA families)") {
  Emulated emu;
  // prod over axes {0, 2} of a (3, 4, 5) view of a (5, 4, 3) buffer, keepdim irrelevant to layout.
  std::vector<int32_t> base(60);
  for (size_t i = 0; i < base.size(); ++i) base[i] = static_cast<int32_t>(i % 7) - 3;
  const TensorValue x = view_of(base, DType::Int32, {3, 4, 5}, {1, 3, 12}, 0);
  const TensorValue y = output(DType::Int64, {4});
  const TensorValue in[] = {x};
  const TensorValue out[] = {y};
  REQUIRE(run_reduce(emu.ctx, node(Op::prod, {{Attr::axes, std::vector<int64_t>{0, 2}}}), in, out));
  for (int64_t j = 0; j < 4; ++j) {
    uint64_t acc = 1;
    for (int64_t i = 0; i < 3; ++i) {
      for (int64_t k = 0; k < 5; ++k) {
        acc *= static_cast<uint64_t>(static_cast<int64_t>(at<int32_t>(x, {i, j, k})));
      }
    }
    CHECK(y.data<int64_t>()[j] == static_cast<int64_t>(acc));
  }
  // argmax of the flattened (5, 6, 7) view of every other element, offset 1; and along axis 1
  // of a long-row view (block kernels).
  const std::vector<float> fb = tie_values(421);
  const TensorValue f = view_of(fb, DType::Float32, {5, 6, 7}, {84, 14, 2}, 1);
  const TensorValue a = output(DType::Int64, {});
  const TensorValue fin[] = {f};
  const TensorValue aout[] = {a};
  REQUIRE(run_reduce(emu.ctx, node(Op::argmax, {}), fin, aout));
  int64_t where = 0, flat = 0;
  float best = at<float>(f, {0, 0, 0});
  for (int64_t i = 0; i < 5; ++i) {
    for (int64_t j = 0; j < 6; ++j) {
      for (int64_t k = 0; k < 7; ++k, ++flat) {
        const float v = at<float>(f, {i, j, k});
        if (v > best || (v != v && best == best)) best = v, where = flat;
      }
    }
  }
  CHECK(a.data<int64_t>()[0] == where);
  std::vector<float> rows(3 * 500);
  for (size_t i = 0; i < rows.size(); ++i) rows[i] = static_cast<float>((i * 13) % 97);
  const TensorValue r = view_of(rows, DType::Float32, {3, 500}, {1, 3}, 0);
  const TensorValue ra = output(DType::Int64, {3});
  const TensorValue rin[] = {r};
  const TensorValue rout[] = {ra};
  REQUIRE(run_reduce(emu.ctx, node(Op::argmin, {{Attr::axis, int64_t{1}}}), rin, rout));
  for (int64_t line = 0; line < 3; ++line) {
    int64_t w = 0;
    for (int64_t k = 1; k < 500; ++k) {
      if (at<float>(r, {line, k}) < at<float>(r, {line, w})) w = k;
    }
    CHECK(ra.data<int64_t>()[line] == w);
  }
}

}  // namespace
}  // namespace tensord::cuda::test
