// The pass of one row reduction in a kernel with inner dimensions (emit_cpp_rows.cpp runs one per
// reduction, in body order): sum, prod, max and min in vector accumulators; argmax and argmin
// per lane with their indices.
#include <algorithm>
#include <cmath>
#include <string>

#include "engine/codegen/emit_cpp_writer.h"

namespace tensord::codegen {

// A row reduction keeps kAccumulators vector accumulators in registers and feeds them the
// blocks in turn (block b goes to accumulator b % kAccumulators): one accumulator made every
// block wait for the previous block's add (or compare), and an accumulator array lived on the
// stack, a store-to-load round trip per block. The tail block is padded with the operation's
// identity (-0 for a float sum, which leaves every value as it is, 1 for a product, -inf / inf
// or the integer dtype's extremes for max / min). Integer sums and products accumulate in
// wrapping uint64 lanes, so that any order gives eager's bits.
void CppWriter::reduction(uint32_t v) {
  const Instr& in = k_.body[v];
  if (in.op == Op::argmax || in.op == Op::argmin) return arg_reduction(v);
  const DType xt = k_.body[in.args[0]].dtype;
  const bool sum = in.op == Op::sum, prod = in.op == Op::prod;
  // Integer sums and products wrap in uint64 and give int64, in any order the same bits.
  const bool wrap = wraps_in_uint64(in.op, xt);
  const std::string t = wrap ? "unsigned long long" : ct(in.dtype);
  const std::string a = "a" + num(v) + "_";
  const std::string vt = "td_a" + num(v);
  // An argument that does not vary along the row (an outer value, e.g. a reduced axis of size
  // 1 merged away, or a constant the simplifier folded) is the same scalar for every element.
  const bool outer_arg = k_.body[in.args[0]].level == Level::Outer;
  const std::string x0 = ref(in.args[0]);
  const std::string x = wrap ? "(" + t + ")(" + x0 + ")" : x0;
  const char* cmp = in.op == Op::max ? " > " : " < ";
  std::string init;
  if (wrap) {
    init = std::string("(") + t + ")" + (sum ? "0" : "1");
  } else if (sum || prod) {
    init = literal(sum ? 0 : 1, t);
  } else {
    init = ir::is_integral(xt) ? integer_extreme(xt, in.op == Op::max)
                               : literal(in.op == Op::max ? -INFINITY : INFINITY, t);
  }
  const std::string pad = sum && !wrap ? literal(-0.0, t) : init;
  auto step = [&](const std::string& acc, const std::string& y) {
    if (sum) return acc + " + " + y;
    if (prod) return acc + " * " + y;
    return "(" + y + cmp + acc + ") | (" + y + " != " + y + ") ? " + y + " : " + acc;
  };
  // Vectors as wide as the target's registers (TD_VB), at most a block: a block feeds the
  // accumulators one register at a time. Wider ones ran scalar on AVX2.
  const bool half = in.dtype == DType::Float16 || in.dtype == DType::BFloat16;  // float lanes
  const int bytes = wrap ? 8 : half ? 4 : static_cast<int>(ir::itemsize(in.dtype));
  const std::string lanes = "TD_L" + num(v);
  line("#if TD_VB == 64");
  line("#define " + lanes + " " + std::to_string(std::min(64 / bytes, 16)));
  line("#elif TD_VB == 32");
  line("#define " + lanes + " " + std::to_string(std::min(32 / bytes, 16)));
  line("#else");
  line("#define " + lanes + " " + std::to_string(std::min(16 / bytes, 16)));
  line("#endif");
  line("  typedef " + t + " __attribute__((vector_size(" + lanes + " * sizeof(" + t + ")))) " + vt +
       ";");
  line("  static_assert(TD_B % " + lanes + " == 0, \"a block is whole registers\");");
  std::string decl = "  " + vt;
  for (int q = 0; q < kAccumulators; ++q) decl += std::string(q ? "," : "") + " " + acc(a, q);
  line(decl + ";");
  line("  for (int j = 0; j < " + lanes + "; ++j) " + acc(a, 0) + "[j] = " + init + ";");
  for (int q = 1; q < kAccumulators; ++q) line("  " + acc(a, q) + " = " + acc(a, 0) + ";");
  with_scratch([&] {
    inner_rows([&] {
      row_blocks(cone({in.args[0]}), [&] {
        // The block's values first, then a register at a time: filling the registers lane by
        // lane from a bool block (a sum of x != 0) gave wrong sums with GCC 12 at -O3 on AVX2
        // (right at -O2 and without tree vectorization).
        line("    {");
        line("    " + t + " xb_[TD_B];");
        // A wrapping accumulator is wider than the elements: they are converted lane by lane.
        if (outer_arg || wrap) {
          line("    TD_LANES xb_[j] = j < m ? " + x + " : " + pad + ";");
        } else {
          line("    if (full) { __builtin_memcpy(xb_, v" + num(in.args[0]) + ", sizeof xb_); }");
          line("    else { TD_LANES xb_[j] = j < m ? " + x + " : " + pad + "; }");
        }
        line("    for (int s_ = 0; s_ < TD_B; s_ += " + lanes + ") {");
        line("    " + vt + " x_;");
        line("    __builtin_memcpy(&x_, xb_ + s_, sizeof x_);");
        line("    const " + vt + " t_ = " + step(acc(a, 0), "x_") + ";");
        std::string rotate = "   ";
        for (int q = 0; q + 1 < kAccumulators; ++q) {
          rotate += " ";  // appends only: GCC 12 warns (-Wrestrict) on " " + std::string
          rotate += acc(a, q);
          rotate += " = ";
          rotate += acc(a, q + 1);
          rotate += ";";
        }
        line(rotate + " " + acc(a, kAccumulators - 1) + " = t_;");
        line("    }");
        line("    }");
      });
    });
  });
  for (int w = kAccumulators / 2; w > 0; w /= 2) {
    for (int q = 0; q < w; ++q) {
      line("  " + acc(a, q) + " = " + step(acc(a, q), acc(a, q + w)) + ";");
    }
  }
  // The lanes fold in halves, a tree of vector steps: a chain through every lane made each row
  // wait for TD_B - 1 dependent adds or compares (the compares branching, and mispredicted on
  // random data), which dominated the reductions of short rows (a min over 64 columns).
  const std::string o = "o" + num(v), f = wrap ? "f" + num(v) : o;
  line("  " + t + " " + f + ";");
  // One fold for each lane count the target may give (2 to 16).
  for (int count = 16; count >= 2; count /= 2) {
    line(std::string(count == 16 ? "#if " : "#elif ") + lanes + " == " + std::to_string(count));
    std::string from = acc(a, 0);
    for (int w = count / 2; w >= 1; w /= 2) {
      const std::string h = a + "h" + std::to_string(w);
      std::string lo, hi;
      for (int j = 0; j < w; ++j) {
        lo += ", " + std::to_string(j);
        hi += ", " + std::to_string(j + w);
      }
      if (w > 1) {
        line("  typedef " + t + " __attribute__((vector_size(" + std::to_string(w) + " * sizeof(" +
             t + ")))) " + h + "_t;");
        line("  " + h + "_t " + h + " = __builtin_shufflevector(" + from + ", " + from + lo + ");");
        line("  " + h + " = " +
             step(h, "__builtin_shufflevector(" + from + ", " + from + hi + ")") + ";");
      } else {
        line("  " + t + " " + h + " = " + step(from + "[0]", from + "[1]") + ";");
      }
      from = h;
    }
    line("  " + f + " = " + from + ";");
  }
  line("#endif");
  line("#undef " + lanes);
  if (wrap) line("  const " + ct(in.dtype) + " " + o + " = (" + ct(in.dtype) + ")" + f + ";");
  if (in.dtype == DType::Float16 || in.dtype == DType::BFloat16) {
    line("  " + o + " = " + rounded(in.dtype, o) + ";");
  }
}

// argmax / argmin as the eager kernels define them (reduce_ops.h): ties keep the first index,
// the first NaN wins. Each lane keeps its best value and index (-1: none yet) over the row's
// elements i + j, t * n + i + j in the row's flat order; lanes then fold in any order, taking
// the better value and, between equal values (or two NaNs), the smaller index.
void CppWriter::arg_reduction(uint32_t v) {
  const Instr& in = k_.body[v];
  const std::string t = ct(k_.body[in.args[0]].dtype);
  const std::string better =
      std::string(in.op == Op::argmax ? "td_argmax_better" : "td_argmin_better") + "<" + t + ">";
  const std::string b = "b" + num(v), k = "k" + num(v), o = "o" + num(v);
  const std::string x = ref(in.args[0]);  // as reduction()'s
  line("  " + t + " " + b + "[TD_B];");
  line("  long long " + k + "[TD_B];");
  line("  TD_LANES { " + b + "[j] = 0; " + k + "[j] = -1; }");
  with_scratch([&] {
    inner_rows([&] {
      row_blocks(cone({in.args[0]}), [&] {
        line("    for (int j = 0; j < m; ++j) {");
        line("      const " + t + " x_ = " + x + ";");
        line("      const bool take_ = " + k + "[j] < 0 || " + better + "(x_, " + b + "[j]);");
        line("      " + b + "[j] = take_ ? x_ : " + b + "[j];");
        line("      " + k + "[j] = take_ ? t * n + i + j : " + k + "[j];");
        line("    }");
      });
    });
  });
  line("  " + t + " " + b + "_ = " + b + "[0];");
  line("  long long " + o + " = " + k + "[0];");
  line("  for (int j = 1; j < TD_B; ++j) {");
  line("    if (" + k + "[j] < 0) continue;");
  line("    if (" + o + " < 0 || " + better + "(" + b + "[j], " + b + "_) || (!" + better + "(" +
       b + "_, " + b + "[j]) && " + k + "[j] < " + o + ")) { " + b + "_ = " + b + "[j]; " + o +
       " = " + k + "[j]; }");
  line("  }");
}

}  // namespace tensord::codegen
