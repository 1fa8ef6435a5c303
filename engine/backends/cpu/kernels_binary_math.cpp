// The two-input math ops of issue 4 (atan2 ... bitwise shifts). Like kernels_binary.cpp, the
// inputs are converted to the output dtype first, so each op is instantiated once per dtype.
// Integer division by zero is defined (docs/ops.md): floor_divide, fmod and remainder give 0.
#include <cmath>
#include <numbers>

#include "engine/backends/cpu/elementwise.h"
#include "engine/backends/cpu/kernels.h"
#include "engine/backends/cpu/vector_math.h"

namespace tensord::cpu {
namespace {

using ir::Op;

// Float-only functions; C is float or double. atan2 and hypot take whole blocks through
// libmvec (vector_math.h): a scalar libm call per element was 40x slower than NumPy.
struct Atan2 {
  template <typename C>
  C operator()(C a, C b) const {
    return std::atan2(a, b);
  }
  template <typename C>
  void block(const C* a, const C* b, C* out, int64_t n) const {
    vmath::atan2(a, b, out, n);
  }
};
struct Hypot {
  template <typename C>
  C operator()(C a, C b) const {
    return std::hypot(a, b);
  }
  template <typename C>
  void block(const C* a, const C* b, C* out, int64_t n) const {
    vmath::hypot(a, b, out, n);
  }
};
struct CopySign {
  template <typename C>
  C operator()(C a, C b) const {
    return std::copysign(a, b);
  }
};
struct NextAfter {
  template <typename C>
  C operator()(C a, C b) const {
    return std::nextafter(a, b);
  }
};
// nextafter on the grid of a 16-bit format H, whose values arrive widened to float (exactly):
// one step of H's bit pattern, so the result is exact in H.
template <typename H>
struct NextAfterHalf {
  float operator()(float a, float b) const {
    if (a != a || b != b) return a + b;
    if (a == b) return b;
    H h;
    if (a == 0) {  // the smallest subnormal, with b's sign
      h.bits = 1;
      return std::copysign(static_cast<float>(h), b);
    }
    h = H(a);
    const bool away_from_zero = (b > a) == (a > 0);
    h.bits = static_cast<uint16_t>(away_from_zero ? h.bits + 1 : h.bits - 1);
    return static_cast<float>(h);
  }
};

// log(exp(a) + exp(b)) without overflow: max + log1p(exp(-|a - b|)); equal infinities give
// themselves (inf - inf would be NaN).
struct LogAddExp {
  template <typename C>
  C operator()(C a, C b) const {
    if (std::isinf(a) && a == b) return a;
    if (a != a || b != b) return a + b;
    return std::max(a, b) + std::log1p(std::exp(-std::fabs(a - b)));
  }
};
struct LogAddExp2 {
  template <typename C>
  C operator()(C a, C b) const {
    if (std::isinf(a) && a == b) return a;
    if (a != a || b != b) return a + b;
    return std::max(a, b) + std::log1p(std::exp2(-std::fabs(a - b))) / std::numbers::ln2_v<C>;
  }
};

// C's fmod: the result has the sign of the dividend.
struct Fmod {
  template <typename C>
  C operator()(C a, C b) const {
    if constexpr (kIsInt<C>) {
      if (b == 0) return 0;
      if constexpr (std::is_signed_v<C>) {
        if (b == -1) return 0;  // min % -1 overflows in C++
      }
      return static_cast<C>(a % b);
    } else {
      return std::fmod(a, b);
    }
  }
};
// Python's %: the result has the sign of the divisor.
struct Remainder {
  template <typename C>
  C operator()(C a, C b) const {
    C r = Fmod{}(a, b);
    if constexpr (std::is_unsigned_v<C>) {
      return r;
    } else {
      if (r != 0 && ((r < 0) != (b < 0))) r = static_cast<C>(r + b);
      return r;
    }
  }
};
// Python's //: the quotient rounded toward -inf. Floats follow PyTorch's div_floor_floating,
// computed in double so float32 and float16 round only once, at the end.
struct FloorDivide {
  template <typename C>
  C operator()(C a, C b) const {
    if constexpr (kIsInt<C>) {
      if (b == 0) return 0;
      if constexpr (std::is_signed_v<C>) {
        if (b == -1) return static_cast<C>(WrapT<C>(0) - static_cast<WrapT<C>>(a));  // wraps
        C q = static_cast<C>(a / b);
        if (a % b != 0 && ((a < 0) != (b < 0))) --q;
        return q;
      } else {
        return static_cast<C>(a / b);
      }
    } else {
      return static_cast<C>(floor_divide(double(a), double(b)));
    }
  }
  static double floor_divide(double a, double b) {
    if (b == 0) return a / b;
    double mod = std::fmod(a, b);
    double div = (a - mod) / b;
    if (mod != 0 && ((b < 0) != (mod < 0))) div -= 1;
    if (div == 0) return std::copysign(0.0, a / b);
    double floor_div = std::floor(div);
    if (div - floor_div > 0.5) floor_div += 1;
    return floor_div;
  }
};

struct BitAnd {
  template <typename C>
  C operator()(C a, C b) const {
    return static_cast<C>(a & b);
  }
};
struct BitOr {
  template <typename C>
  C operator()(C a, C b) const {
    return static_cast<C>(a | b);
  }
};
struct BitXor {
  template <typename C>
  C operator()(C a, C b) const {
    return static_cast<C>(a ^ b);
  }
};
// Shifts by a negative amount or by the bit width or more are defined: the left shift gives 0,
// the right shift the sign fill (0 or -1).
template <typename C>
bool out_of_range(C shift) {
  constexpr int kBits = 8 * sizeof(C);
  if constexpr (std::is_signed_v<C>)
    return shift < 0 || shift >= kBits;
  else
    return shift >= kBits;
}
struct ShiftLeft {
  template <typename C>
  C operator()(C a, C s) const {
    if (out_of_range(s)) return 0;
    return static_cast<C>(static_cast<WrapT<C>>(a) << s);
  }
};
struct ShiftRight {
  template <typename C>
  C operator()(C a, C s) const {
    if (out_of_range(s)) {
      if constexpr (std::is_signed_v<C>) return a < 0 ? C(-1) : C(0);
      return 0;
    }
    return static_cast<C>(a >> s);  // arithmetic for signed types (C++20)
  }
};

// NumPy's gcd and lcm: Euclid on the magnitudes in the unsigned type, where |MIN| fits, so that
// gcd(MIN, 0) and an lcm past the type's range wrap (to MIN, as NumPy's) instead of being UB.
template <typename C>
std::make_unsigned_t<C> magnitude(C a) {
  using U = std::make_unsigned_t<C>;
  if constexpr (std::is_signed_v<C>) return a < 0 ? static_cast<U>(U(0) - static_cast<U>(a)) : U(a);
  return a;
}
template <typename U>
U gcd_of(U x, U y) {
  while (y != 0) {
    const U r = static_cast<U>(x % y);
    x = y;
    y = r;
  }
  return x;
}
struct Gcd {
  template <typename C>
  C operator()(C a, C b) const {
    return static_cast<C>(gcd_of(magnitude(a), magnitude(b)));
  }
};
struct Lcm {
  template <typename C>
  C operator()(C a, C b) const {
    using U = std::make_unsigned_t<C>;
    const U x = magnitude(a), y = magnitude(b), g = gcd_of(x, y);
    return g == 0 ? C(0) : static_cast<C>(static_cast<WrapT<U>>(x / g) * static_cast<WrapT<U>>(y));
  }
};

// ops: output, a, b.
template <typename T, typename F>
void apply(const KernelContext& ctx, std::span<const Operand> ops, F f) {
  launch(ctx.threads, ops,
         [f](char* const* p, const int64_t* s, int64_t n) { binary_row<T, T>(p, s, n, f); });
}

template <typename T>
void run_typed(const KernelContext& ctx, Op op, std::span<const Operand> ops) {
  auto go = [&](auto f) { apply<T>(ctx, ops, f); };
  if constexpr (kIsFloat<T>) {
    switch (op) {
      case Op::atan2:
        return go(Atan2{});
      case Op::hypot:
        return go(Hypot{});
      case Op::copysign:
        return go(CopySign{});
      case Op::logaddexp:
        return go(LogAddExp{});
      case Op::logaddexp2:
        return go(LogAddExp2{});
      case Op::nextafter:
        if constexpr (kIsHalf<T>)
          return go(NextAfterHalf<T>{});
        else
          return go(NextAfter{});
      default:
        break;
    }
  }
  if constexpr (!std::is_same_v<T, bool>) {
    switch (op) {
      case Op::fmod:
        return go(Fmod{});
      case Op::remainder:
        return go(Remainder{});
      case Op::floor_divide:
        return go(FloorDivide{});
      default:
        break;
    }
  }
  if constexpr (!kIsFloat<T>) {
    switch (op) {
      case Op::bitwise_and:
        return go(BitAnd{});
      case Op::bitwise_or:
        return go(BitOr{});
      case Op::bitwise_xor:
        return go(BitXor{});
      default:
        break;
    }
  }
  if constexpr (kIsInt<T>) {
    switch (op) {
      case Op::bitwise_left_shift:
        return go(ShiftLeft{});
      case Op::bitwise_right_shift:
        return go(ShiftRight{});
      case Op::gcd:
        return go(Gcd{});
      case Op::lcm:
        return go(Lcm{});
      default:
        break;
    }
  }
  throw_unsupported(op, dtype_of<T>());
}

}  // namespace

bool is_binary_math(Op op) {
  switch (op) {
    case Op::atan2:
    case Op::hypot:
    case Op::logaddexp:
    case Op::logaddexp2:
    case Op::copysign:
    case Op::fmod:
    case Op::remainder:
    case Op::floor_divide:
    case Op::bitwise_and:
    case Op::bitwise_or:
    case Op::bitwise_xor:
    case Op::bitwise_left_shift:
    case Op::bitwise_right_shift:
    case Op::gcd:
    case Op::lcm:
    case Op::nextafter:
      return true;
    default:
      return false;
  }
}

void run_binary_math(const KernelContext& ctx, const ir::Node& node, const TensorValue& a,
                     const TensorValue& b, const TensorValue& out) {
  const ir::DType compute = out.type.dtype;
  TensorValue keep_a, keep_b;
  Operand ops[3] = {operand_of(out), operand_as(ctx, a, compute, keep_a),
                    operand_as(ctx, b, compute, keep_b)};
  visit_dtype(compute, [&]<typename T>(TypeTag<T>) { run_typed<T>(ctx, node.op, ops); });
}

}  // namespace tensord::cpu
