"""bench/ops peers: elementwise math, activations (ops_table.cpp) and special functions
(ops_table_special.cpp). numpy_ops(i) and scipy_ops(i, sc) map names to calls over the inputs i
of numpy_peer.make_inputs; every result is float32 like tensord's."""
import numpy as np

F = np.float32
SELU_A, SELU_S = F(1.6732632423543772), F(1.0507009873554805)


def softplus(a):
    return np.where(a > 20, a, np.log1p(np.exp(a)))


def log_softmax(a):
    m = a.max(axis=1, keepdims=True)
    return a - m - np.log(np.exp(a - m).sum(axis=1, keepdims=True))


def softmax(a):
    e = np.exp(a - a.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def numpy_ops(i):
    x, y, pos, unit, ints, shifts = i.x, i.y, i.pos, i.unit, i.ints, i.shifts
    return {
        "exp2": lambda: np.exp2(x), "expm1": lambda: np.expm1(x), "log2": lambda: np.log2(pos),
        "log10": lambda: np.log10(pos), "log1p": lambda: np.log1p(pos), "tan": lambda: np.tan(x),
        "asin": lambda: np.arcsin(unit), "acos": lambda: np.arccos(unit),
        "atan": lambda: np.arctan(x), "sinh": lambda: np.sinh(x), "cosh": lambda: np.cosh(x),
        "asinh": lambda: np.arcsinh(x), "acosh": lambda: np.arccosh(pos + F(1)),
        "atanh": lambda: np.arctanh(unit), "reciprocal": lambda: np.reciprocal(pos),
        "square": lambda: np.square(x), "trunc": lambda: np.trunc(x),
        "pow_2": lambda: x ** F(2), "pow_3": lambda: x ** F(3), "pow_1_5": lambda: pos ** F(1.5),
        "frac": lambda: np.modf(x)[0], "isnan": lambda: np.isnan(x),
        "isinf": lambda: np.isinf(x), "isfinite": lambda: np.isfinite(x),
        "signbit": lambda: np.signbit(x), "nan_to_num": lambda: np.nan_to_num(x),
        "bitwise_and": lambda: np.bitwise_and(ints, shifts),
        "bitwise_or": lambda: np.bitwise_or(ints, shifts),
        "bitwise_xor": lambda: np.bitwise_xor(ints, shifts),
        "bitwise_not": lambda: np.invert(ints),
        "bitwise_left_shift": lambda: np.left_shift(ints, shifts),
        "bitwise_right_shift": lambda: np.right_shift(ints, shifts),
        "gcd": lambda: np.gcd(ints, shifts), "lcm": lambda: np.lcm(ints, shifts),
        "atan2": lambda: np.arctan2(x, y), "hypot": lambda: np.hypot(x, y),
        "logaddexp": lambda: np.logaddexp(x, y), "logaddexp2": lambda: np.logaddexp2(x, y),
        "copysign": lambda: np.copysign(x, y), "fmod": lambda: np.fmod(x, pos),
        "remainder": lambda: np.remainder(x, pos),
        "floor_divide": lambda: np.floor_divide(x, pos),
        "nextafter": lambda: np.nextafter(x, y), "lerp": lambda: x + F(0.3) * (y - x),
        "addcmul": lambda: x + F(0.5) * y * pos, "addcdiv": lambda: x + F(0.5) * y / pos,
        "gelu_tanh": lambda: F(0.5) * x * (F(1) + np.tanh(
            F(0.7978845608) * (x + F(0.044715) * x**3))),
        "silu": lambda: x / (F(1) + np.exp(-x)),
        "elu": lambda: np.where(x > 0, x, np.expm1(x)),
        "celu": lambda: np.where(x > 0, x, F(2) * np.expm1(x / F(2))),
        "selu": lambda: SELU_S * np.where(x > 0, x, SELU_A * np.expm1(x)),
        "leaky_relu": lambda: np.where(x > 0, x, F(0.01) * x),
        "hardtanh": lambda: np.clip(x, F(-1), F(1)),
        "hardsigmoid": lambda: np.clip(x + F(3), F(0), F(6)) / F(6),
        "hardswish": lambda: x * (np.clip(x + F(3), F(0), F(6)) / F(6)),
        "softplus": lambda: softplus(x), "softsign": lambda: x / (F(1) + np.abs(x)),
        "mish": lambda: x * np.tanh(np.log1p(np.exp(x))),
        "prelu": lambda: np.where(x > 0, x, i.weight * x),
        "glu": lambda: x[:, :500] / (F(1) + np.exp(-x[:, 500:])),
        # special functions NumPy has
        "i0": lambda: np.i0(x).astype(F),
        "sinc": lambda: np.sinc(x),
        "softmax": lambda: softmax(x),
        "log_softmax": lambda: log_softmax(x),
    }


def scipy_ops(i, sc):
    x, pos, unit, prob = i.x, i.pos, i.unit, i.prob
    sp = sc.special if sc else None
    return {
        "gelu": lambda: F(0.5) * x * (F(1) + sp.erf(x * F(0.7071067811865476))),
        "erfc": lambda: sp.erfc(x), "erfcx": lambda: sp.erfcx(x),
        "erfinv": lambda: sp.erfinv(unit), "lgamma": lambda: sp.gammaln(pos),
        "digamma": lambda: sp.psi(pos), "polygamma1": lambda: sp.polygamma(1, pos).astype(F),
        "multigammaln3": lambda: sp.multigammaln(pos + F(1), 3).astype(F),
        "gammainc": lambda: sp.gammainc(pos, prob), "gammaincc": lambda: sp.gammaincc(pos, prob),
        "i0e": lambda: sp.i0e(x), "i1": lambda: sp.i1(x), "i1e": lambda: sp.i1e(x),
        "bessel_j0": lambda: sp.j0(x), "bessel_j1": lambda: sp.j1(x),
        "ndtr": lambda: sp.ndtr(x), "ndtri": lambda: sp.ndtri(prob),
        "log_ndtr": lambda: sp.log_ndtr(x), "logit": lambda: sp.logit(prob),
        "expit": lambda: sp.expit(x), "xlogy": lambda: sp.xlogy(x, pos),
        "xlog1py": lambda: sp.xlog1py(x, pos), "entr": lambda: sp.entr(pos),
        "zeta": lambda: sp.zeta(pos + F(1), pos),
    }
