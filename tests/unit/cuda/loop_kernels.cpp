#include "tests/unit/cuda/loop_kernels.h"

#include "engine/codegen/emit_cuda_internal.h"

namespace tensord::codegen::test {
namespace {

using ir::DType;
using ir::Op;
constexpr Access C = Access::Contiguous;
constexpr Access B = Access::Broadcast;
constexpr Access S = Access::Strided;

LoopKernel copy(DType t, int rank, Access a) {
  KernelBuilder k(rank, 0);
  k.out(k.load(t, a));
  return k.kernel();
}

LoopKernel reduction(Op op, DType in, DType out, int outer, int inner, Access a) {
  KernelBuilder k(outer, inner);
  k.out(k.reduce(op, k.load(in, a), out));
  return k.kernel();
}

}  // namespace

LoopKernel softmax(DType t, int outer, int inner, Access a) {
  KernelBuilder k(outer, inner);
  const uint32_t x = k.load(t, a);
  const uint32_t m = k.reduce(Op::max, x, t);
  const uint32_t e = k.op(Op::exp, {k.op(Op::sub, {x, m}, t)}, t);
  const uint32_t s = k.reduce(Op::sum, e, t);
  k.out(k.op(Op::div, {e, s}, t));
  return k.kernel();
}

LoopKernel centred(DType t) {
  KernelBuilder k(1, 1);
  const uint32_t x = k.load(t);
  k.out(k.op(Op::sub, {x, k.reduce(Op::sum, x, t)}, t));
  return k.kernel();
}

LoopKernel layer_norm() {
  const DType f32 = DType::Float32;
  KernelBuilder k(2, 1);
  const uint32_t x = k.load(f32);
  const uint32_t w = k.load(f32), b = k.load(f32);
  const uint32_t inv_n = k.constant(f32, 0), eps = k.constant(f32, 1);
  const uint32_t mean = k.op(Op::mul, {k.reduce(Op::sum, x, f32), inv_n}, f32, Level::Outer);
  const uint32_t d = k.op(Op::sub, {x, mean}, f32);
  const uint32_t var =
      k.op(Op::mul, {k.reduce(Op::sum, k.op(Op::mul, {d, d}, f32), f32), inv_n}, f32, Level::Outer);
  const uint32_t den = k.op(Op::add, {var, eps}, f32, Level::Outer);
  const uint32_t y = k.op(Op::div, {d, den}, f32);
  k.out(k.op(Op::add, {k.op(Op::mul, {y, w}, f32), b}, f32)).out(mean).out(var);
  return k.kernel();
}

std::vector<NamedKernel> structure_kernels() {
  std::vector<NamedKernel> ks;
  const DType f32 = DType::Float32;
  {
    KernelBuilder k(1, 0);
    k.out(k.op(Op::add, {k.load(f32), k.load(f32)}, f32));
    ks.push_back({"f32 add, rank 1, contiguous", k.kernel()});
  }
  {
    KernelBuilder k(1, 0);
    const uint32_t s = k.op(Op::mul, {k.load(f32, C), k.load(f32, B)}, f32);
    k.out(k.op(Op::add, {s, k.load(f32, S)}, f32));
    ks.push_back({"f32 mul-add, rank 1, contiguous/broadcast/strided", k.kernel()});
  }
  {
    KernelBuilder k(2, 0);
    k.out(k.op(Op::add, {k.load(f32, C), k.load(f32, C)}, f32));
    ks.push_back({"f32 bias add, rank 2", k.kernel()});
  }
  {
    KernelBuilder k(3, 0);
    k.out(k.op(Op::sub, {k.load(f32, S), k.load(f32, B)}, f32));
    ks.push_back({"f32 sub, rank 3, strided/broadcast", k.kernel()});
  }
  {
    KernelBuilder k(4, 0);
    const uint32_t e = k.op(Op::neg, {k.op(Op::exp, {k.load(f32, C)}, f32)}, f32);
    k.out(k.op(Op::mul, {e, k.constant(f32, 0)}, f32));
    ks.push_back({"f32 -exp(x) * c, rank 4", k.kernel()});
  }
  for (DType t : {DType::Float16, DType::BFloat16, DType::Float64}) {
    KernelBuilder k(2, 0);
    const uint32_t e = k.op(Op::exp, {k.load(t, C)}, t);
    const uint32_t s = k.op(Op::add, {e, k.load(t, S)}, t);
    k.out(k.op(Op::div, {s, k.constant(t, 1)}, t)).out(e);
    ks.push_back({std::string(ir::name(t)) + " (exp(x) + y) / c and exp(x), rank 2", k.kernel()});
  }
  for (DType t : {DType::Bool, DType::Int8, DType::UInt8, DType::Int16, DType::Int32, DType::Int64,
                  DType::Float16}) {
    ks.push_back({std::string(ir::name(t)) + " copy, rank 1", copy(t, 1, C)});
    ks.push_back({std::string(ir::name(t)) + " strided copy, rank 2", copy(t, 2, S)});
  }
  {
    // A count of trues per row (int64, wrapping uint64).
    KernelBuilder k(1, 1);
    const uint32_t x = k.load(f32);
    const uint32_t m = k.op(Op::lt, {x, k.load(f32, S)}, DType::Bool);
    k.out(k.reduce(Op::sum, m, DType::Int64));
    ks.push_back({"bool count of a row", k.kernel()});
  }
  ks.push_back({"f32 softmax, 1 + 1", softmax(f32, 1, 1, C)});
  ks.push_back({"f16 softmax, 2 + 1", softmax(DType::Float16, 2, 1, C)});
  ks.push_back({"bf16 softmax, 1 + 2, strided", softmax(DType::BFloat16, 1, 2, S)});
  ks.push_back({"f64 softmax, 3 + 1, strided", softmax(DType::Float64, 3, 1, S)});
  {
    // The shift and the sum also leave as outputs; 1/sum is an outer op on a constant.
    KernelBuilder k(1, 1);
    const uint32_t x = k.load(f32);
    const uint32_t m = k.reduce(Op::max, x, f32);
    const uint32_t e = k.op(Op::exp, {k.op(Op::sub, {x, m}, f32)}, f32);
    const uint32_t s = k.reduce(Op::sum, e, f32);
    const uint32_t inv = k.op(Op::div, {k.constant(f32, 0), s}, f32, Level::Outer);
    k.out(k.op(Op::mul, {e, inv}, f32)).out(m).out(s).out(inv);
    ks.push_back({"f32 softmax with outer outputs", k.kernel()});
  }
  ks.push_back({"f32 layer norm, 2 + 1", layer_norm()});
  {
    KernelBuilder k(2, 1);
    k.out(k.op(Op::mul, {k.reduce(Op::sum, k.load(f32), f32), k.constant(f32, 0)}, f32,
               Level::Outer));
    ks.push_back({"f32 mean, 2 + 1", k.kernel()});
  }
  {
    // An outer input: broadcast along the row, summed n times, and scaling the row.
    KernelBuilder k(1, 1);
    const uint32_t g = k.load(f32, B, Level::Outer);
    const uint32_t x = k.load(f32);
    k.out(k.op(Op::mul, {x, g}, f32)).out(k.reduce(Op::sum, g, f32));
    ks.push_back({"f32 outer input, 1 + 1", k.kernel()});
  }
  ks.push_back({"f32 column sum (strided rows)", reduction(Op::sum, f32, f32, 1, 1, S)});
  ks.push_back({"f32 max, 2 + 2", reduction(Op::max, f32, f32, 2, 2, C)});
  ks.push_back(
      {"f16 min, 2 + 2 strided", reduction(Op::min, DType::Float16, DType::Float16, 2, 2, S)});
  ks.push_back({"bf16 sum, 1 + 1", reduction(Op::sum, DType::BFloat16, DType::BFloat16, 1, 1, C)});
  ks.push_back({"f64 max, 1 + 1", reduction(Op::max, DType::Float64, DType::Float64, 1, 1, C)});
  ks.push_back({"f64 sum, 1 + 3", reduction(Op::sum, DType::Float64, DType::Float64, 1, 3, S)});
  for (DType t :
       {DType::Bool, DType::Int8, DType::UInt8, DType::Int16, DType::Int32, DType::Int64}) {
    const std::string n(ir::name(t));
    ks.push_back({n + " sum", reduction(Op::sum, t, DType::Int64, 1, 1, C)});
    ks.push_back({n + " max", reduction(Op::max, t, t, 1, 1, C)});
    ks.push_back({n + " min, 2 + 2", reduction(Op::min, t, t, 2, 2, S)});
  }
  // Issue 6: prod (integers wrap into int64), argmax / argmin (a value and an index per lane).
  ks.push_back({"f32 prod, 1 + 1", reduction(Op::prod, f32, f32, 1, 1, C)});
  ks.push_back(
      {"f16 prod, 2 + 2 strided", reduction(Op::prod, DType::Float16, DType::Float16, 2, 2, S)});
  ks.push_back({"int32 prod, 1 + 1", reduction(Op::prod, DType::Int32, DType::Int64, 1, 1, C)});
  for (DType t :
       {DType::Float32, DType::Float16, DType::Float64, DType::Int8, DType::UInt8, DType::Int64}) {
    const std::string n(ir::name(t));
    ks.push_back({n + " argmax, 1 + 1", reduction(Op::argmax, t, DType::Int64, 1, 1, C)});
    ks.push_back({n + " argmin, 2 + 2 strided", reduction(Op::argmin, t, DType::Int64, 2, 2, S)});
  }
  {  // an integer chain into argmax, and a consumer of the index
    KernelBuilder k(1, 1);
    const DType i32 = DType::Int32, i64 = DType::Int64;
    const uint32_t x = k.load(i32), y = k.load(i32);
    const uint32_t q = k.op(Op::floor_divide, {x, y}, i32);
    const uint32_t s = k.op(Op::bitwise_left_shift, {k.op(Op::remainder, {q, y}, i32), y}, i32);
    const uint32_t a = k.reduce(Op::argmax, k.op(Op::cast, {s}, DType::Float16), i64);
    k.out(k.op(Op::add, {a, k.op(Op::cast, {k.constant(i32, 0)}, i64, Level::Outer)}, i64,
               Level::Outer))
        .out(s);
    ks.push_back({"int32 floor_divide, remainder, shift, cast, argmax, 1 + 1", k.kernel()});
  }
  return ks;
}

namespace {

// One elementwise op over loaded inputs, named "op (in...) -> out".
NamedKernel one_op_kernel(Op op, const std::vector<DType>& in, DType out) {
  KernelBuilder k(1, 0);
  std::vector<uint32_t> args;
  std::string what = std::string(ir::name(op)) + " (";
  for (DType t : in) {
    args.push_back(k.load(t));
    what += std::string(ir::name(t)) + " ";
  }
  k.out(k.op(op, args, out));
  return {what + ") -> " + std::string(ir::name(out)), k.kernel()};
}

}  // namespace

std::vector<NamedKernel> op_kernels() {
  const DType all[] = {DType::Bool,    DType::Int8,   DType::UInt8,   DType::Int16,
                       DType::Int32,   DType::Int64,  DType::Float16, DType::BFloat16,
                       DType::Float32, DType::Float64};
  std::vector<NamedKernel> ks;
  auto add = [&](Op op, std::vector<DType> in, DType out) {
    if (!cuda_op_supported(op, in, out)) return;
    ks.push_back(one_op_kernel(op, in, out));
  };
  for (const ir::OpInfo& info : ir::all_ops()) {
    for (DType t : all) {
      for (DType r : all) {
        switch (info.kind) {
          case ir::OpKind::Unary:
            add(info.op, {t}, r);
            break;
          case ir::OpKind::Binary:
            add(info.op, {t, t}, r);
            if (t != DType::Float32) add(info.op, {t, DType::Float32}, r);
            break;
          case ir::OpKind::Ternary:
            add(info.op, {DType::Bool, t, t}, r);
            break;
          default:
            break;
        }
      }
    }
  }
  return ks;
}

std::vector<NamedKernel> complex_kernels() {
  const DType all[] = {DType::Bool,    DType::Int8,    DType::UInt8,     DType::Int16,
                       DType::Int32,   DType::Int64,   DType::Float16,   DType::BFloat16,
                       DType::Float32, DType::Float64, DType::Complex64, DType::Complex128};
  std::vector<NamedKernel> ks;
  auto add = [&](Op op, std::vector<DType> in, DType out) {
    bool complex = ir::is_complex(out);
    for (DType t : in) complex = complex || ir::is_complex(t);
    if (!complex || !cuda_op_supported(op, in, out)) return;
    ks.push_back(one_op_kernel(op, in, out));
  };
  for (const ir::OpInfo& info : ir::all_ops()) {
    for (DType t : all) {
      for (DType r : all) {
        switch (info.kind) {
          case ir::OpKind::Unary:
            add(info.op, {t}, r);
            break;
          case ir::OpKind::Binary:  // the result shape inference gives
            for (DType p : all) {
              if (r == DType::Bool || r == ir::promote(t, p) || info.op == Op::complex)
                add(info.op, {t, p}, r);
            }
            break;
          case ir::OpKind::Ternary:
            for (DType p : all) {
              if (r == ir::promote(t, p)) add(info.op, {DType::Bool, t, p}, r);
            }
            break;
          default:
            break;
        }
      }
    }
  }
  for (DType t : {DType::Complex64, DType::Complex128}) {
    const std::string n(ir::name(t));
    ks.push_back({n + " sum, 1 + 1", reduction(Op::sum, t, t, 1, 1, C)});
    ks.push_back({n + " sum, 2 + 2 strided", reduction(Op::sum, t, t, 2, 2, S)});
    ks.push_back({n + " column sum (strided rows)", reduction(Op::sum, t, t, 1, 1, S)});
    KernelBuilder k(2, 1);
    const uint32_t x = k.load(t, B);
    k.out(k.op(Op::div, {k.reduce(Op::sum, x, t), k.constant(t, 0)}, t, Level::Outer));
    ks.push_back({n + " mean (sum / constant), 2 + 1", k.kernel()});
    ks.push_back({n + " centred (x - sum(x)), 1 + 1", centred(t)});
  }
  return ks;
}

std::vector<NamedKernel> column_kernels() {
  std::vector<NamedKernel> ks;
  const DType f32 = DType::Float32;
  {
    // A bias gradient: x * w (w per column) stored, its column sum scaled, and a column max.
    KernelBuilder k(1, 1);
    k.columns();
    const uint32_t x = k.load(f32);
    const uint32_t w = k.load(f32, Access::Contiguous, Level::Outer);
    const uint32_t e = k.op(Op::mul, {x, w}, f32);
    const uint32_t s = k.reduce(Op::sum, e, f32);
    k.out(k.op(Op::mul, {s, k.constant(f32, 0)}, f32, Level::Outer))
        .out(k.reduce(Op::max, x, f32))
        .out(e);
    ks.push_back({"f32 column sum, max and row output, 1 + 1", k.kernel()});
  }
  {
    KernelBuilder k(2, 2);
    k.columns();
    k.out(k.reduce(Op::sum, k.load(DType::Int32, Access::Strided), DType::Int64));
    ks.push_back({"i32 column sum into int64, 2 + 2 strided", k.kernel()});
  }
  {
    KernelBuilder k(1, 1);
    k.columns();
    const uint32_t x = k.op(Op::exp, {k.load(DType::Float16)}, DType::Float16);
    k.out(k.reduce(Op::min, x, DType::Float16)).out(k.reduce(Op::prod, x, DType::Float16));
    ks.push_back({"f16 column min and prod of exp, 1 + 1", k.kernel()});
  }
  {
    // Whether every element of a column differs from the column's own value: a product of bools.
    KernelBuilder k(1, 1);
    k.columns();
    const uint32_t ne =
        k.op(Op::ne, {k.load(f32), k.load(f32, Access::Contiguous, Level::Outer)}, DType::Bool);
    k.out(k.reduce(Op::prod, ne, DType::Int64));
    ks.push_back({"bool column product, 1 + 1", k.kernel()});
  }
  return ks;
}

}  // namespace tensord::codegen::test
