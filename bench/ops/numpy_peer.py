"""NumPy's side of bench/ops: times each op of bench/ops/ops_table.cpp (same names, same
shapes and value ranges) and prints "name median_seconds" lines.

Usage: numpy_peer.py REPEATS [FILTER]. Functions NumPy lacks (softplus, cross_entropy, ...) are
written as the NumPy expressions a user would write; each result is float32 like tensord's.
"""
import sys
import time

import numpy as np

rng = np.random.default_rng(0)
F = np.float32


def uniform(lo, hi, shape=(1000, 1000)):
    return rng.uniform(lo, hi, shape).astype(F)


x, y = uniform(-4, 4), uniform(-4, 4)
pos, unit, prob = uniform(0.5, 4.5), uniform(-0.9, 0.9), uniform(0.01, 0.99)
ints = np.floor(uniform(-1000, 1000)).astype(np.int32)
shifts = np.floor(uniform(0, 8)).astype(np.int32)
classes = rng.integers(0, 1000, 1000)
weight = uniform(0, 0.5, (1000,))
rows = np.arange(1000)


def softplus(a):
    return np.where(a > 20, a, np.log1p(np.exp(a)))


def log_softmax(a):
    m = a.max(axis=1, keepdims=True)
    return a - m - np.log(np.exp(a - m).sum(axis=1, keepdims=True))


def logsumexp(a):
    m = a.max(axis=1, keepdims=True)
    return (m + np.log(np.exp(a - m).sum(axis=1, keepdims=True)))[:, 0]


SELU_A, SELU_S = F(1.6732632423543772), F(1.0507009873554805)
OPS = {
    "exp2": lambda: np.exp2(x), "expm1": lambda: np.expm1(x), "log2": lambda: np.log2(pos),
    "log10": lambda: np.log10(pos), "log1p": lambda: np.log1p(pos), "tan": lambda: np.tan(x),
    "asin": lambda: np.arcsin(unit), "acos": lambda: np.arccos(unit),
    "atan": lambda: np.arctan(x), "sinh": lambda: np.sinh(x), "cosh": lambda: np.cosh(x),
    "asinh": lambda: np.arcsinh(x), "acosh": lambda: np.arccosh(pos + F(1)),
    "atanh": lambda: np.arctanh(unit), "reciprocal": lambda: np.reciprocal(pos),
    "square": lambda: np.square(x), "trunc": lambda: np.trunc(x),
    "frac": lambda: np.modf(x)[0], "isnan": lambda: np.isnan(x),
    "isfinite": lambda: np.isfinite(x), "signbit": lambda: np.signbit(x),
    "nan_to_num": lambda: np.nan_to_num(x), "bitwise_xor": lambda: np.bitwise_xor(ints, shifts),
    "bitwise_left_shift": lambda: np.left_shift(ints, shifts),
    "atan2": lambda: np.arctan2(x, y), "hypot": lambda: np.hypot(x, y),
    "logaddexp": lambda: np.logaddexp(x, y), "logaddexp2": lambda: np.logaddexp2(x, y),
    "copysign": lambda: np.copysign(x, y), "fmod": lambda: np.fmod(x, pos),
    "remainder": lambda: np.remainder(x, pos), "floor_divide": lambda: np.floor_divide(x, pos),
    "nextafter": lambda: np.nextafter(x, y), "lerp": lambda: x + F(0.3) * (y - x),
    "addcmul": lambda: x + F(0.5) * y * pos, "addcdiv": lambda: x + F(0.5) * y / pos,
    "gelu_tanh": lambda: F(0.5) * x * (F(1) + np.tanh(F(0.7978845608) * (x + F(0.044715) * x**3))),
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
    "prelu": lambda: np.where(x > 0, x, weight * x),
    "glu": lambda: x[:, :500] / (F(1) + np.exp(-x[:, 500:])),
    "all": lambda: np.all(x, axis=1), "any": lambda: np.any(x, axis=1),
    "count_nonzero": lambda: np.count_nonzero(x, axis=1), "amax": lambda: np.amax(x, axis=1),
    "nansum": lambda: np.nansum(x, axis=1), "nanmean": lambda: np.nanmean(x, axis=1),
    "std": lambda: np.std(x, axis=1), "logsumexp": lambda: logsumexp(x),
    "norm2": lambda: np.linalg.norm(x, 2, axis=1),
    "norm_inf": lambda: np.linalg.norm(x, np.inf, axis=1),
    "norm3": lambda: np.linalg.norm(x, 3, axis=1),
    "cumsum": lambda: np.cumsum(x, axis=1), "cumprod": lambda: np.cumprod(prob, axis=1),
    "logcumsumexp": lambda: np.logaddexp.accumulate(x, axis=1),
    "mse_loss": lambda: np.mean(np.square(x - y)), "l1_loss": lambda: np.mean(np.abs(x - y)),
    "smooth_l1_loss": lambda: np.mean(np.where(np.abs(x - y) < 1, F(0.5) * (x - y) ** 2,
                                               np.abs(x - y) - F(0.5))),
    "huber_loss": lambda: np.mean(np.where(np.abs(x - y) < 1, F(0.5) * (x - y) ** 2,
                                           np.abs(x - y) - F(0.5))),
    "binary_cross_entropy": lambda: -np.mean(prob * np.maximum(np.log(prob), -100) +
                                             (1 - prob) * np.maximum(np.log(1 - prob), -100)),
    "bce_with_logits": lambda: np.mean(np.maximum(x, 0) - x * prob +
                                       np.log1p(np.exp(-np.abs(x)))),
    "kl_div": lambda: np.mean(prob * (np.log(prob) - x)),
    "cross_entropy": lambda: -np.mean(log_softmax(x)[rows, classes]),
    "nll_loss": lambda: -np.mean(x[rows, classes]),
    "cosine_similarity": lambda: np.sum(
        (x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-8)) *
        (y / np.maximum(np.linalg.norm(y, axis=1, keepdims=True), 1e-8)), axis=1),
}


def main():
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    text = sys.argv[2] if len(sys.argv) > 2 else ""
    for name, fn in OPS.items():
        if text not in name:
            continue
        for _ in range(2):
            fn()
        times = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t0)
        print(name, sorted(times)[len(times) // 2], flush=True)


if __name__ == "__main__":
    main()
