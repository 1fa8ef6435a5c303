#include <catch2/catch.hpp>

#include <cmath>

#include "cpu_test_support.h"
#include "engine/backends/cpu/matmul_dnnl.h"

namespace tensord::cpu::test {
namespace {

// n small integers in [-3, 3] ([0, 3] for uint8): products and sums stay exact in every dtype
// until the final rounding of the output.
TensorValue filled(CpuBackend& cpu, DType dtype, int64_t n, uint32_t seed) {
  std::vector<float> v(static_cast<size_t>(n));
  for (auto& x : v) {
    seed = seed * 1664525u + 1013904223u;
    x = static_cast<float>(static_cast<int>(seed >> 16) % 7 - 3);
    if (dtype == DType::UInt8) x = std::abs(x);
  }
  auto f = tensor<float>(cpu, {n}, v);
  return run(cpu, node(Op::cast, {dtype, {n}}, {{Attr::dtype, dtype}}), {f});
}

std::vector<double> as_doubles(CpuBackend& cpu, const TensorValue& v) {
  return values<double>(run(
      cpu, node(Op::cast, {DType::Float64, v.type.shape}, {{Attr::dtype, DType::Float64}}), {v}));
}

// The value a dtype stores for an exact result.
double stored(DType dtype, double exact) {
  return visit_dtype(dtype, [&]<typename T>(TypeTag<T>) -> double {
    if constexpr (kIsInt<T>) {
      return static_cast<double>(static_cast<T>(static_cast<int64_t>(exact)));
    } else if constexpr (kIsHalf<T>) {
      return static_cast<float>(T(static_cast<float>(exact)));
    } else {
      return static_cast<double>(static_cast<T>(exact));
    }
  });
}

// Element of a strided view at a multi-index, as double (read through a float64 copy of the
// view's whole buffer).
struct Reader {
  std::vector<double> base;
  const TensorValue& v;
  Reader(CpuBackend& cpu, const TensorValue& view_, int64_t buffer_elements) : v(view_) {
    TensorValue whole = view(v, {buffer_elements}, {1}, 0);
    base = as_doubles(cpu, whole);
  }
  double at(const std::vector<int64_t>& idx) const {
    int64_t off = v.offset;
    for (size_t d = 0; d < idx.size(); ++d) off += idx[d] * v.strides[d];
    return base[off];
  }
};

// Array API matmul in doubles through the views.
std::vector<double> reference(const Reader& a, const Reader& b, const Shape& out_shape) {
  Shape as = a.v.type.shape, bs = b.v.type.shape;
  bool a1 = as.size() == 1, b1 = bs.size() == 1;
  int64_t m = a1 ? 1 : as[as.size() - 2], k = as.back(), n = b1 ? 1 : bs.back();
  size_t la = a1 ? 0 : as.size() - 2, lb = b1 ? 0 : bs.size() - 2, rank = std::max(la, lb);
  Shape batch(rank);
  for (size_t d = 0; d < rank; ++d) {
    int64_t da = d + la >= rank ? as[d + la - rank] : 1,
            db = d + lb >= rank ? bs[d + lb - rank] : 1;
    batch[d] = std::max(da, db);
  }
  std::vector<double> out;
  int64_t count = ir::numel(batch);
  for (int64_t bi = 0; bi < count; ++bi) {
    std::vector<int64_t> idx(rank);
    for (int64_t d = static_cast<int64_t>(rank) - 1, r = bi; d >= 0; --d) {
      idx[d] = r % batch[d];
      r /= batch[d];
    }
    auto batch_of = [&](const Shape& s, size_t l) {
      std::vector<int64_t> sub;
      for (size_t d = 0; d < l; ++d) {
        int64_t i = idx[rank - l + d];
        sub.push_back(s[d] == 1 ? 0 : i);
      }
      return sub;
    };
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0;
        for (int64_t p = 0; p < k; ++p) {
          auto ia = batch_of(as, la), ib = batch_of(bs, lb);
          if (!a1) ia.push_back(i);
          ia.push_back(p);
          ib.push_back(p);
          if (!b1) ib.push_back(j);
          sum += a.at(ia) * b.at(ib);
        }
        out.push_back(sum);
      }
    }
  }
  REQUIRE(static_cast<int64_t>(out.size()) == ir::numel(out_shape));
  return out;
}

void check(CpuBackend& cpu, DType dtype, const TensorValue& a, int64_t a_elements,
           const TensorValue& b, int64_t b_elements, const Shape& out_shape) {
  Reader ra(cpu, a, a_elements), rb(cpu, b, b_elements);
  std::vector<double> want = reference(ra, rb, out_shape);
  auto got = as_doubles(cpu, run(cpu, node(Op::matmul, {dtype, out_shape}), {a, b}));
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    INFO("dtype " << ir::name(dtype) << " element " << i);
    CHECK(got[i] == stored(dtype, want[i]));
  }
}

const DType kDTypes[] = {DType::Int8,     DType::UInt8,   DType::Int16,
                         DType::Int32,    DType::Int64,   DType::Float16,
                         DType::BFloat16, DType::Float32, DType::Float64};

TEST_CASE("matmul of plain matrices matches a naive loop for every dtype") {
  CpuBackend cpu(2);
  for (DType dtype : kDTypes) {
    auto a = filled(cpu, dtype, 5 * 7, 1), b = filled(cpu, dtype, 7 * 3, 2);
    check(cpu, dtype, view(a, {5, 7}, {7, 1}, 0), 35, view(b, {7, 3}, {3, 1}, 0), 21, {5, 3});
  }
}

TEST_CASE("matmul takes transposed and offset views") {
  CpuBackend cpu(2);
  for (DType dtype : kDTypes) {
    auto a = filled(cpu, dtype, 40, 3), b = filled(cpu, dtype, 40, 4);
    // a: (6, 5) as the transpose of a (5, 6) block at offset 2; b: (5, 4) transposed.
    check(cpu, dtype, view(a, {6, 5}, {1, 6}, 2), 40, view(b, {5, 4}, {1, 5}, 0), 40, {6, 4});
    // Neither row- nor column-major (every other column): copied for oneDNN.
    check(cpu, dtype, view(a, {4, 3}, {8, 2}, 1), 40, view(b, {3, 4}, {4, 1}, 3), 40, {4, 4});
  }
}

TEST_CASE("matmul broadcasts batch dims and handles 1-D operands") {
  CpuBackend cpu(2);
  for (DType dtype : kDTypes) {
    auto a = filled(cpu, dtype, 2 * 3 * 4, 5), b = filled(cpu, dtype, 3 * 4 * 2, 6);
    // (2, 1, 3, 4) x (3, 4, 2) -> (2, 3, 3, 2)
    check(cpu, dtype, view(a, {2, 1, 3, 4}, {12, 12, 4, 1}, 0), 24,
          view(b, {3, 4, 2}, {8, 2, 1}, 0), 24, {2, 3, 3, 2});
    // (3, 4) x (3, 4, 2) with a expanded along the batch by stride 0 -> (3, 3, 2)
    check(cpu, dtype, view(a, {3, 3, 4}, {0, 4, 1}, 0), 24, view(b, {3, 4, 2}, {8, 2, 1}, 0), 24,
          {3, 3, 2});
    // Both operands expanded along the batch: oneDNN may refuse it; the result must not care.
    check(cpu, dtype, view(a, {3, 3, 4}, {0, 4, 1}, 0), 24, view(b, {3, 4, 2}, {0, 2, 1}, 0), 24,
          {3, 3, 2});
    // 1-D cases
    check(cpu, dtype, view(a, {4}, {1}, 0), 24, view(b, {4, 2}, {2, 1}, 0), 24, {2});
    check(cpu, dtype, view(a, {3, 4}, {4, 1}, 0), 24, view(b, {4}, {1}, 0), 24, {3});
    check(cpu, dtype, view(a, {4}, {1}, 0), 24, view(b, {4}, {2}, 1), 24, {});
    check(cpu, dtype, view(a, {2, 3, 4}, {12, 4, 1}, 0), 24, view(b, {4}, {1}, 0), 24, {2, 3});
  }
}

TEST_CASE("matmul of one-element operands, whatever their strides") {
  // A dim of size 1 may carry any stride (a value of shape (1,) from a broadcast has stride 0);
  // such operands sent matmul into an endless copy-and-retry before oneDNN (found by running
  // random graphs: tests/unit/exec/test_run_random.cpp).
  CpuBackend cpu(2);
  for (DType dtype : kDTypes) {
    auto a = filled(cpu, dtype, 8, 9), b = filled(cpu, dtype, 8, 10);
    check(cpu, dtype, view(a, {1}, {0}, 3), 8, view(b, {1}, {0}, 5), 8, {});
    check(cpu, dtype, view(a, {1, 1}, {0, 0}, 1), 8, view(b, {1, 1}, {5, 7}, 0), 8, {1, 1});
    check(cpu, dtype, view(a, {1}, {0}, 2), 8, view(b, {1, 3}, {0, 2}, 1), 8, {3});
    check(cpu, dtype, view(a, {2, 1, 1}, {3, 0, 0}, 0), 8, view(b, {1, 1}, {0, 0}, 4), 8,
          {2, 1, 1});
  }
}

TEST_CASE("matmul of larger operands, in parallel") {
  CpuBackend cpu(4);
  for (DType dtype : {DType::Float32, DType::Float64, DType::Int32, DType::BFloat16}) {
    auto a = filled(cpu, dtype, 67 * 130, 7), b = filled(cpu, dtype, 130 * 301, 8);
    check(cpu, dtype, view(a, {67, 130}, {130, 1}, 0), 67 * 130, view(b, {130, 301}, {301, 1}, 0),
          130 * 301, {67, 301});
  }
}

TEST_CASE("matmul with an empty inner dim gives zeros; empty outputs are fine") {
  CpuBackend cpu(1);
  for (DType dtype : {DType::Float32, DType::Int64}) {
    auto a = filled(cpu, dtype, 1, 9);
    auto zeros = as_doubles(cpu, run(cpu, node(Op::matmul, {dtype, {2, 3}}),
                                     {view(a, {2, 0}, {0, 1}, 0), view(a, {0, 3}, {3, 1}, 0)}));
    CHECK(zeros == std::vector<double>(6, 0.0));
    auto none = run(cpu, node(Op::matmul, {dtype, {0, 3}}),
                    {view(a, {0, 1}, {1, 1}, 0), view(a, {1, 3}, {0, 0}, 0)});
    CHECK(none.type.numel() == 0);
  }
}

TEST_CASE("a layout oneDNN refuses does not turn oneDNN off for the dtype") {
  CpuBackend cpu(1);
  DnnlMatmul dnnl;
  KernelContext ctx{1, {}};
  auto a = tensor<float>(cpu, {2, 2}, {1, 2, 3, 4});
  auto out = empty(cpu, {DType::Float32, {3, 2, 2}});
  // Both operands broadcast along a batch of 3: whatever oneDNN says about it...
  (void)dnnl.run(ctx, describe_matmul(view(a, {3, 2, 2}, {0, 2, 1}, 0),
                                      view(a, {3, 2, 2}, {0, 2, 1}, 0), out));
  // ...a plain product still runs on oneDNN.
  auto plain = empty(cpu, {DType::Float32, {2, 2}});
  CHECK(dnnl.run(ctx, describe_matmul(a, a, plain)));
  CHECK(values<float>(plain) == std::vector<float>{7, 10, 15, 22});
}

TEST_CASE("oneDNN primitives are cached by problem") {
  CpuBackend cpu(1);
  DnnlMatmul dnnl;
  auto a = tensor<float>(cpu, {2, 2}, {1, 2, 3, 4});
  auto out = empty(cpu, {DType::Float32, {2, 2}});
  MatmulProblem p = describe_matmul(a, a, out);
  KernelContext ctx{1, {}};
  REQUIRE(dnnl.run(ctx, p));
  REQUIRE(dnnl.run(ctx, p));
  CHECK(dnnl.cached_primitives() == 1);
  CHECK(values<float>(out) == std::vector<float>{7, 10, 15, 22});
  auto b = tensor<float>(cpu, {2, 3}, {1, 0, 0, 0, 1, 0});
  auto out2 = empty(cpu, {DType::Float32, {2, 3}});
  REQUIRE(dnnl.run(ctx, describe_matmul(a, b, out2)));
  CHECK(dnnl.cached_primitives() == 2);
}

}  // namespace
}  // namespace tensord::cpu::test
