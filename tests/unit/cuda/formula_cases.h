// Cases of the formula agreement tests: per (op, dtypes) combination, inputs over the cross
// product of edge and random values of its input dtypes (in their storage and compute types),
// the CPU backend's result, and the comparison of another result with it (integer and bool
// results exactly, float results within the conformance table's Transcendental tolerance).
#pragma once

#include <cmath>
#include <cstring>
#include <random>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "engine/backends/cpu/host_buffer.h"
#include "engine/backends/cpu/kernels.h"
#include "engine/ir/graph.h"
#include "engine/ir/half.h"
#include "tests/unit/cuda/formula_combos.h"

namespace tensord::codegen::test {

// Values of each dtype: the edges first, then random ones.
inline std::vector<double> values(DType t) {
  std::vector<double> v;
  std::mt19937_64 rng(static_cast<uint64_t>(t) + 7);
  if (t == DType::Bool) return {0, 1};
  if (ir::is_integral(t)) {
    v = {0, 1, -1, 2, 3, -3, 7, -8, 31, 63, 64, 100, 127, -128, 255, -32768, 32767};
    if (t == DType::Int32 || t == DType::Int64) {
      for (double x : {-2147483648.0, 2147483647.0, 65536.0, -1e9}) v.push_back(x);
    }
    if (t == DType::Int64) {
      for (double x : {-9223372036854775808.0, 4611686018427387904.0, 1e15}) v.push_back(x);
    }
    std::uniform_int_distribution<int> d(-50, 50);
    while (v.size() < 40) v.push_back(d(rng));
    return v;
  }
  v = {0.0, -0.0, 1,  -1,  0.5,  -0.5,  2,    -2.5,     3,         0.25, 0.75, 0.999, 1e-3,
       10,  -10,  30, 100, -100, 1e-30, 1e30, INFINITY, -INFINITY, NAN,  0.1,  5.5,   26};
  std::uniform_real_distribution<double> d(-8, 8);
  while (v.size() < 48) v.push_back(d(rng));
  return v;
}

// `x` stored as dtype t at p.
inline void store(DType t, void* p, double x) {
  switch (t) {
    case DType::Bool:
      *static_cast<bool*>(p) = x != 0;
      break;
    case DType::Int8:
      *static_cast<int8_t*>(p) = static_cast<int8_t>(static_cast<int64_t>(x));
      break;
    case DType::UInt8:
      *static_cast<uint8_t*>(p) = static_cast<uint8_t>(static_cast<int64_t>(x));
      break;
    case DType::Int16:
      *static_cast<int16_t*>(p) = static_cast<int16_t>(static_cast<int64_t>(x));
      break;
    case DType::Int32:
      *static_cast<int32_t*>(p) = static_cast<int32_t>(static_cast<int64_t>(x));
      break;
    case DType::Int64:
      *static_cast<int64_t*>(p) = x >= 9.2e18 ? INT64_MAX : static_cast<int64_t>(x);
      break;
    case DType::Float16:
      *static_cast<ir::Float16*>(p) = ir::Float16(static_cast<float>(x));
      break;
    case DType::BFloat16:
      *static_cast<ir::BFloat16*>(p) = ir::BFloat16(static_cast<float>(x));
      break;
    case DType::Float32:
      *static_cast<float*>(p) = static_cast<float>(x);
      break;
    default:
      *static_cast<double*>(p) = x;
      break;
  }
}

// Element i of dtype t at p, as a double.
inline double load(DType t, const void* p, size_t i) {
  switch (t) {
    case DType::Bool:
      return static_cast<const bool*>(p)[i];
    case DType::Int8:
      return static_cast<const int8_t*>(p)[i];
    case DType::UInt8:
      return static_cast<const uint8_t*>(p)[i];
    case DType::Int16:
      return static_cast<const int16_t*>(p)[i];
    case DType::Int32:
      return static_cast<const int32_t*>(p)[i];
    case DType::Int64:
      return static_cast<double>(static_cast<const int64_t*>(p)[i]);
    case DType::Float16:
      return static_cast<float>(static_cast<const ir::Float16*>(p)[i]);
    case DType::BFloat16:
      return static_cast<float>(static_cast<const ir::BFloat16*>(p)[i]);
    case DType::Float32:
      return static_cast<const float*>(p)[i];
    default:
      return static_cast<const double*>(p)[i];
  }
}

// Bytes of t's compute type on the device.
inline size_t compute_size(DType t) {
  return ir::is_floating(t) && t != DType::Float64 ? 4 : ir::itemsize(t);
}

inline double rtol(DType t) {
  return t == DType::Float64   ? 1e-13
         : t == DType::Float32 ? 4e-6
         : t == DType::Float16 ? 1.5e-3
                               : 1.2e-2;
}

struct Case {
  Combo combo;
  size_t n = 0;
  std::vector<std::vector<char>> host_in;  // storage dtype
  std::vector<std::vector<char>> dev_in;   // compute type
  std::vector<char> cpu_out;               // storage dtype
  std::vector<char> gpu_out;               // compute type
};

inline void run_cpu(Case& c) {
  const Combo& k = c.combo;
  std::vector<engine::TensorValue> in;
  for (size_t j = 0; j < k.in.size(); ++j) {
    engine::TensorValue v =
        cpu::allocate_value(ir::TensorType{k.in[j], {static_cast<int64_t>(c.n)}});
    std::memcpy(v.data<char>(), c.host_in[j].data(), c.host_in[j].size());
    in.push_back(v);
  }
  engine::TensorValue out = cpu::allocate_value(ir::TensorType{k.out, {static_cast<int64_t>(c.n)}});
  ir::Node node;
  node.op = k.op;
  if (k.op == Op::cast) node.attrs.set(ir::Attr::dtype, k.out);
  node.outputs = {out.type};
  cpu::KernelContext ctx;
  if (k.op == Op::where) {
    cpu::run_where(ctx, in[0], in[1], in[2], out);
  } else if (in.size() == 1) {
    cpu::run_unary(ctx, node, in[0], out);
  } else {
    cpu::run_binary(ctx, node, in[0], in[1], out);
  }
  c.cpu_out.assign(out.data<char>(), out.data<char>() + out.nbytes());
}

// Elements per combination: the cross product of the inputs' values (cut short for where).
inline constexpr size_t kElements = 4096;

inline Case make_case(const Combo& k) {
  Case c;
  c.combo = k;
  std::vector<std::vector<double>> vals;
  for (DType t : k.in) vals.push_back(values(t));
  const size_t n = kElements;
  c.n = n;
  for (size_t j = 0; j < k.in.size(); ++j) {
    const DType t = k.in[j];
    std::vector<char> h(n * ir::itemsize(t)), d(n * compute_size(t));
    size_t stride = 1;
    for (size_t q = 0; q < j; ++q) stride *= vals[q].size();
    for (size_t i = 0; i < n; ++i) {
      const double x = vals[j][(i / stride) % vals[j].size()];
      store(t, h.data() + i * ir::itemsize(t), x);
      const double stored = load(t, h.data(), i);
      if (t == DType::Float16 || t == DType::BFloat16) {
        const float f = static_cast<float>(stored);
        std::memcpy(d.data() + i * 4, &f, 4);
      } else {
        std::memcpy(d.data() + i * compute_size(t), h.data() + i * ir::itemsize(t),
                    ir::itemsize(t));
      }
    }
    c.host_in.push_back(std::move(h));
    c.dev_in.push_back(std::move(d));
  }
  return c;
}

// The largest term of a sum whose terms cancel, where the formula is one: zeta(s, q) with
// q < 0 sums (q + k)^-s over k, negative and positive terms alike (zeta(31, -2.5): terms of
// +-2^31 with a sum near 1e-17), so two correct implementations differ by rounding of that size.
inline double largest_term(const Case& c, size_t i) {
  if (c.combo.op != ir::Op::zeta) return 0;
  const double s = load(c.combo.in[0], c.host_in[0].data(), i);
  const double q = load(c.combo.in[1], c.host_in[1].data(), i);
  if (!(q < 0) || !std::isfinite(q)) return 0;
  return std::pow(std::fabs(q - std::nearbyint(q)), -s);
}

// Mismatches of one case, as text (empty when it agrees).
inline std::string compare(const Case& c) {
  const DType t = c.combo.out;
  std::ostringstream s;
  int shown = 0, bad = 0;
  for (size_t i = 0; i < c.n; ++i) {
    const double want = load(t, c.cpu_out.data(), i);
    double got;
    if (t == DType::Float16 || t == DType::BFloat16) {
      float f;
      std::memcpy(&f, c.gpu_out.data() + i * 4, 4);
      got = f;
    } else {
      got = load(t, c.gpu_out.data(), i);
    }
    bool ok;
    if (!ir::is_floating(t)) {
      ok = std::memcmp(c.cpu_out.data() + i * ir::itemsize(t),
                       c.gpu_out.data() + i * ir::itemsize(t), ir::itemsize(t)) == 0;
    } else if (std::isnan(want) || std::isnan(got)) {
      ok = std::isnan(want) && std::isnan(got);
    } else if (std::isinf(want) || std::isinf(got)) {
      ok = want == got;
    } else {
      ok = std::fabs(got - want) <= rtol(t) * (std::fabs(want) + largest_term(c, i)) + rtol(t) / 4;
    }
    if (ok) continue;
    ++bad;
    if (shown++ < 4) {
      s << "    (";
      for (size_t j = 0; j < c.combo.in.size(); ++j)
        s << (j ? ", " : "") << load(c.combo.in[j], c.host_in[j].data(), i);
      s.precision(17);
      s << ") cpu " << want << " gpu " << got << "\n";
    }
  }
  if (bad == 0) return "";
  std::ostringstream head;
  head << ir::name(c.combo.op) << "(";
  for (size_t j = 0; j < c.combo.in.size(); ++j) head << (j ? ", " : "") << ir::name(c.combo.in[j]);
  head << ") -> " << ir::name(c.combo.out) << ": " << bad << " of " << c.n << " differ\n";
  return head.str() + s.str();
}

// The kernels of every supported combination as loops over n elements, named k<first index>:
// `o` and `a` are tables of the combinations' output and input arrays (3 slots each), in the
// compute types. On the device a grid-stride loop; on the host (formulas_host_test.cpp, with
// formulas_host_shim.h standing in for CUDA's builtins) a plain loop.
inline std::vector<std::string> loop_kernels(std::span<const Combo> combos, bool device) {
  const std::string params = "void* const* o, const void* const* a, long long n";
  const std::string head =
      device ? "  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; "
               "i += (long long)gridDim.x * blockDim.x) {\n"
             : "  for (long long i = 0; i < n; ++i) {\n";
  std::vector<std::string> texts = kernels(combos, "[i]", params, head);
  for (std::string& k : texts) k.insert(k.size() - 2, "  }\n");  // closes the loop
  return texts;
}

// The entry point's name of a kernel text.
inline std::string kernel_name(const std::string& text) {
  const size_t at = text.find(" k") + 1;
  return text.substr(at, text.find('(', at) - at);
}

}  // namespace tensord::codegen::test
