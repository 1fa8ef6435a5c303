// The elementwise (op, dtypes) combinations of ops.def over the real dtypes, as inference
// accepts them, and kernels that apply the CUDA formula table to them: shared by the NVRTC
// test (emit_cuda_ops_test.cpp) and the GPU agreement test (formulas_gpu_test.cpp).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "engine/backends/cuda/nvrtc_compiler.h"
#include "engine/codegen/emit_cuda_internal.h"
#include "engine/ir/error.h"
#include "engine/ir/op.h"

namespace tensord::codegen::test {

using ir::DType;
using ir::Op;

inline constexpr DType kReal[] = {DType::Bool,    DType::Int8,   DType::UInt8,   DType::Int16,
                                  DType::Int32,   DType::Int64,  DType::Float16, DType::BFloat16,
                                  DType::Float32, DType::Float64};

// Elementwise ops this table does not take (the conformance table checks them): their attribute
// comes as a second, Float64 argument (polygamma's n, multigammaln's p: alone they are not
// supported), two outputs (frexp: a formula per output, mantissa and int32 exponent), a complex
// result (complex).
inline bool excluded(Op op) {
  return op == Op::polygamma || op == Op::multigammaln || op == Op::frexp || op == Op::complex;
}
// What cuda_op_supported says of an excluded op with one input.
inline bool supported_alone(Op op, DType in, DType out) {
  return op == Op::frexp && ir::is_floating(in) && (out == in || out == DType::Int32);
}

struct Combo {
  Op op;
  std::vector<DType> in;
  DType out;
};

inline std::optional<DType> inferred(Op op, const std::vector<DType>& in, const ir::Attrs& attrs) {
  std::vector<ir::TensorType> types;
  for (DType t : in) types.push_back(ir::TensorType{t, {3}});
  std::vector<const ir::TensorType*> ptrs;
  for (const ir::TensorType& t : types) ptrs.push_back(&t);
  try {
    return ir::infer(op, ptrs, attrs).at(0).dtype;
  } catch (const Error&) {
    return std::nullopt;
  }
}

// Every (op, input dtypes) of kinds Unary/Binary/Ternary over the real dtypes, with the result
// inference gives (cast: every target dtype).
struct Table {
  std::vector<Combo> supported;
  std::vector<std::string> failures;
  int excluded = 0;
};

inline Table table() {
  Table t;
  auto check = [&](Op op, const std::vector<DType>& in, const ir::Attrs& attrs) {
    const std::optional<DType> out = inferred(op, in, attrs);
    std::string what = std::string(ir::name(op)) + "(";
    for (DType d : in) what += std::string(ir::name(d)) + " ";
    what += ")";
    for (DType r : kReal) {
      const bool want =
          excluded(op) ? in.size() == 1 && supported_alone(op, in[0], r) : out && *out == r;
      if (cuda_op_supported(op, in, r) != want) {
        t.failures.push_back(what + " -> " + std::string(ir::name(r)) +
                             (want ? ": not supported"
                                   : ": supported but inference says " +
                                         (out ? std::string(ir::name(*out)) : std::string("no"))));
      }
    }
    if (!out) return;
    if (excluded(op)) {
      ++t.excluded;
      return;
    }
    t.supported.push_back(Combo{op, in, *out});
  };
  for (const ir::OpInfo& info : ir::all_ops()) {
    const Op op = info.op;
    if (info.kind == ir::OpKind::Unary) {
      for (DType a : kReal) {
        if (op == Op::cast) {
          for (DType to : kReal) {
            const std::optional<DType> out = inferred(op, {a}, {{ir::Attr::dtype, to}});
            if (!out || *out != to || !cuda_op_supported(op, std::vector<DType>{a}, to)) {
              t.failures.push_back("cast " + std::string(ir::name(a)) + " -> " +
                                   std::string(ir::name(to)));
            } else {
              t.supported.push_back(Combo{op, {a}, to});
            }
          }
          continue;
        }
        check(op, {a}, {});
      }
    } else if (info.kind == ir::OpKind::Binary) {
      for (DType a : kReal)
        for (DType b : kReal) check(op, {a, b}, {});
    } else if (info.kind == ir::OpKind::Ternary) {
      for (DType c : kReal)
        for (DType a : kReal)
          for (DType b : kReal) check(op, {c, a, b}, {});
    }
  }
  return t;
}

// Kernels of up to kPerKernel combinations of one op, one statement each (ptxas compiles the
// callees of every entry point again, and its time grows faster than the size of a kernel: a
// kernel per combination, or one per op, takes minutes). A statement loads its arguments in
// their compute types and stores the formula, rounded to a 16-bit result's grid as the
// emitter's structure does.
inline constexpr size_t kPerKernel = 25;

inline std::string statement(const Combo& c, size_t index, const std::string& at) {
  const std::string slot = std::to_string(index);
  std::vector<std::string> args;
  for (size_t i = 0; i < c.in.size(); ++i) {
    args.push_back("((const " + std::string(cuda_compute_type(c.in[i])) + "*)a[" +
                   std::to_string(3 * index + i) + "])" + at);
  }
  std::string e = cuda_expr(c.op, args, c.in, c.out);
  if (c.out == DType::Float16) e = "td_rh(" + e + ")";
  if (c.out == DType::BFloat16) e = "td_rb(" + e + ")";
  return "  ((" + std::string(cuda_compute_type(c.out)) + "*)o[" + slot + "])" + at + " = " + e +
         ";\n";
}

// The special functions (double, with loops; not inlined) cost ptxas most per entry point:
// one kernel for all their combinations.
inline bool special(Op op) {
  switch (op) {
    case Op::lgamma:
    case Op::digamma:
    case Op::erfinv:
    case Op::erfcx:
    case Op::i0:
    case Op::i0e:
    case Op::i1:
    case Op::i1e:
    case Op::ndtr:
    case Op::ndtri:
    case Op::log_ndtr:
    case Op::sinc:
    case Op::entr:
    case Op::logit:
    case Op::xlogy:
    case Op::xlog1py:
    case Op::bessel_j0:
    case Op::bessel_j1:
    case Op::gammainc:
    case Op::gammaincc:
    case Op::zeta:
      return true;
    default:
      return false;
  }
}

// The kernels of `combos`, named k<first index>.
inline std::vector<std::string> kernels(std::span<const Combo> combos, const std::string& at,
                                        const std::string& params, const std::string& head) {
  std::vector<std::string> out;
  size_t in_kernel = 0;
  for (size_t i = 0; i < combos.size(); ++i) {
    const bool new_op = i == 0 || combos[i].op != combos[i - 1].op;
    if (new_op || (in_kernel == kPerKernel && !special(combos[i].op))) {
      if (!out.empty()) out.back() += "}\n";
      out.push_back("extern \"C\" __global__ void k" + std::to_string(i) + "(" + params + ") {\n" +
                    head);
      in_kernel = 0;
    }
    out.back() += statement(combos[i], i, at);
    ++in_kernel;
  }
  if (!out.empty()) out.back() += "}\n";
  return out;
}

inline cuda::NvrtcOutput compile(const std::string& source, const std::string& name) {
  cuda::NvrtcRequest request;
  request.source = source;
  request.name = name;
  request.arch = 90;
  request.cubin = true;
  request.options = {"-default-device", "-std=c++17"};
  return cuda::nvrtc_compile(request);
}

}  // namespace tensord::codegen::test
