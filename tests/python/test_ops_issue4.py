"""Issue 4's ops through the Python namespace against NumPy formulas (the conformance table
checks every dtype and edge; this checks the bindings and their arguments)."""
import math

import numpy as np
import pytest

import tensord as td
from test_interop import random_values


def check(got, want, rtol=1e-5, atol=1e-6):
    np.testing.assert_allclose(np.asarray(got), want, rtol=rtol, atol=atol, equal_nan=True)


def softplus(a, beta=1.0, threshold=20.0):
    return np.where(a * beta > threshold, a, np.log1p(np.exp(a * beta)) / beta)


ACTIVATIONS = {
    "elu": (lambda x: td.elu(x, alpha=0.5), lambda a: np.where(a > 0, a, 0.5 * np.expm1(a))),
    "celu": (lambda x: td.celu(x, 2.0), lambda a: np.where(a > 0, a, 2 * np.expm1(a / 2))),
    "leaky_relu": (lambda x: td.leaky_relu(x, 0.2), lambda a: np.where(a > 0, a, 0.2 * a)),
    "hardtanh": (lambda x: td.hardtanh(x, -0.5, 2.0), lambda a: np.clip(a, -0.5, 2.0)),
    "hardsigmoid": (td.hardsigmoid, lambda a: np.clip(a + 3, 0, 6) / 6),
    "hardswish": (td.hardswish, lambda a: a * np.clip(a + 3, 0, 6) / 6),
    "softplus": (lambda x: td.softplus(x, beta=2.0, threshold=5.0),
                 lambda a: softplus(a, 2.0, 5.0)),
    "softsign": (td.softsign, lambda a: a / (1 + np.abs(a))),
    "mish": (td.mish, lambda a: a * np.tanh(np.log1p(np.exp(a)))),
}


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
@pytest.mark.parametrize("shape", [(), (0,), (3, 4)])
def test_activations(name, shape):
    ours, theirs = ACTIVATIONS[name]
    a = random_values(shape, np.float32, seed=sum(map(ord, name)))
    check(ours(td.asarray(a)), theirs(a.astype(np.float64)))


def test_prelu_glu_selu():
    a = random_values((2, 3, 4), np.float32, seed=1)
    w = np.array([0.1, 0.2, 0.3], np.float32)
    check(td.prelu(td.asarray(a), td.asarray(w)), np.where(a > 0, a, w[:, None] * a))
    first, second = a[..., :2], a[..., 2:]
    check(td.glu(td.asarray(a)), first / (1 + np.exp(-second)))
    with pytest.raises(ValueError, match="odd"):
        td.glu(td.asarray(a), axis=1)


def test_pointwise():
    a = random_values((5,), np.float32, seed=2)
    b = random_values((5,), np.float32, seed=3)
    check(td.nextafter(td.asarray(a), td.asarray(b)), np.nextafter(a, b), rtol=0, atol=0)
    check(td.lerp(td.asarray(a), td.asarray(b), 0.25), a + 0.25 * (b - a))
    check(td.addcmul(td.asarray(a), td.asarray(a), td.asarray(b), value=0.5), a + 0.5 * a * b)
    check(td.addcdiv(td.asarray(a), td.asarray(a), td.asarray(b) + 10, value=2),
          a + 2 * a / (b + 10))
    with pytest.raises(TypeError, match="floating-point"):
        td.nextafter(td.asarray(np.arange(3)), td.asarray(np.arange(3)))


def test_reductions_and_scans():
    a = random_values((4, 5), np.float32, seed=4)
    x = td.asarray(a)
    m = a.astype(np.float64).max(axis=1, keepdims=True)
    check(td.logsumexp(x, axis=1), (m + np.log(np.exp(a - m).sum(axis=1, keepdims=True)))[:, 0])
    check(td.norm(x, 3, axis=1), np.sum(np.abs(a.astype(np.float64)) ** 3, axis=1) ** (1 / 3))
    check(td.amax(x, axis=0, keepdims=True), a.max(axis=0, keepdims=True))
    check(td.nanmean(x), np.nanmean(a))
    check(td.cumsum(x, 1), np.cumsum(a, axis=1))
    check(td.cumulative_prod(x, axis=0, include_initial=True),
          np.concatenate([np.ones((1, 5)), np.cumprod(a, axis=0)]))
    check(td.logcumsumexp(x, 0), np.logaddexp.accumulate(a.astype(np.float64), axis=0))


def test_losses():
    a = random_values((6, 4), np.float32, seed=5)
    b = random_values((6, 4), np.float32, seed=6)
    x, y = td.asarray(a), td.asarray(b)
    check(td.mse_loss(x, y), np.mean((a - b) ** 2))
    check(td.l1_loss(x, y, reduction="sum"), np.sum(np.abs(a - b)), rtol=1e-4)
    target = np.array([0, 3, 1, 2, 3, 0])
    logp = a - np.log(np.exp(a).sum(axis=1, keepdims=True))
    check(td.cross_entropy(x, td.asarray(target)), -np.mean(logp[np.arange(6), target]))
    check(td.nll_loss(x, td.asarray(target), ignore_index=3, reduction="none"),
          np.where(target == 3, 0, -a[np.arange(6), target]))
    with pytest.raises(ValueError, match="reduction"):
        td.mse_loss(x, y, reduction="avg")


def test_shape_ops():
    a = random_values((4, 5), np.float32, seed=7)
    x = td.asarray(a)
    check(td.tril(x, k=1), np.tril(a, 1))
    check(td.triu(x, k=-1), np.triu(a, -1))
    check(td.tile(x, (2, 1, 3)), np.tile(a, (2, 1, 3)))
    check(td.repeat(x, 2, axis=1), np.repeat(a, 2, axis=1))
    check(td.rot90(x, 3), np.rot90(a, 3))
    check(td.diagonal(x, offset=1), np.diagonal(a, 1))
    check(td.diag(td.asarray(a[0])), np.diag(a[0]))
    check(td.take_along_axis(x, td.asarray(np.argsort(a, axis=1)), axis=1),
          np.take_along_axis(a, np.argsort(a, axis=1), axis=1))
    check(td.one_hot(td.asarray(np.array([0, 2, 1])), 3), np.eye(3)[[0, 2, 1]])
    check(td.masked_fill(x, td.asarray(a > 0), 0.0), np.where(a > 0, 0, a))
    parts = td.split(x, [1, 3], axis=0)
    assert [p.shape for p in parts] == [(1, 5), (3, 5)]
    check(parts[1], a[1:])
    assert [c.shape for c in td.chunk(x, 2, axis=1)] == [(4, 3), (4, 2)]
    gx, gy = td.meshgrid(td.asarray(np.arange(3.0)), td.asarray(np.arange(2.0)))
    nx, ny = np.meshgrid(np.arange(3.0), np.arange(2.0))
    check(gx, nx)
    check(gy, ny)


def test_special():
    a = np.array([0.1, 0.5, 2.5, 7.0], np.float64)
    x = td.asarray(a)
    check(td.special.gammaln(x), [math.lgamma(v) for v in a], rtol=1e-12)
    check(td.special.erfinv(td.asarray(np.array([-0.5, 0.0, 0.9]))),
          [-0.4769362762044699, 0.0, 1.1630871536766743], rtol=1e-12)
    check(td.special.ndtr(x), [0.5 * math.erfc(-v / math.sqrt(2)) for v in a], rtol=1e-12)
    check(td.special.xlogy(0.0, x), np.zeros(4))
    check(td.special.i0e(x), np.i0(a) * np.exp(-a), rtol=1e-12)
    check(td.special.sinc(x), np.sinc(a), rtol=1e-12, atol=1e-15)


def test_scatter():
    x = np.zeros((3, 4), np.float32)
    index = np.array([[0, 1, 0, 2]])
    src = np.arange(4, dtype=np.float32).reshape(1, 4) + 1
    want = x.copy()
    np.add.at(want, (index[0], np.arange(4)), src[0])
    check(td.scatter_add(td.asarray(x), 0, td.asarray(index), td.asarray(src)), want)
    check(td.scatter(td.asarray(x), 0, td.asarray(index), td.asarray(src)), want)
    got = td.index_add(td.asarray(x), 0, td.asarray(np.array([2, 2])),
                       td.asarray(np.ones((2, 4), np.float32)), alpha=0.5)
    check(got, np.concatenate([np.zeros((2, 4)), np.ones((1, 4))]))


def test_one_hot_infers_num_classes_like_torch():
    idx = np.array([[0, 3], [2, 1]], dtype=np.int64)
    got = td.one_hot(td.asarray(idx))
    assert got.shape == (2, 2, 4)
    np.testing.assert_array_equal(np.asarray(got), np.eye(4, dtype=np.int64)[idx])
    with pytest.raises(ValueError, match="empty"):
        td.one_hot(td.asarray(np.zeros(0, np.int64)))
    with pytest.raises(ValueError, match="negative"):
        td.one_hot(td.asarray(np.array([-1, -2], np.int64)))


def test_math_bound_last():
    """reciprocal, frac, erfc, logaddexp2, fmod, nan_to_num, broadcast_tensors."""
    a = random_values((5, 4), np.float64, seed=11)
    b = random_values((4,), np.float64, seed=12) + 0.5
    x, y = td.asarray(a), td.asarray(b)
    check(td.reciprocal(x), 1 / a)
    check(td.frac(x), a - np.trunc(a))
    erfc = np.vectorize(math.erfc)
    check(td.erfc(x), erfc(a))
    check(td.special.erfc(x), erfc(a))
    check(td.logaddexp2(x, y), np.logaddexp2(a, b))
    check(td.fmod(x, y), np.fmod(a, b))
    check(td.fmod(td.asarray(np.array([-7, 7], np.int32)), 3), np.array([-1, 1]))
    p, q = td.broadcast_tensors(x, y)
    assert p.shape == q.shape == (5, 4)
    check(q, np.broadcast_to(b, (5, 4)))


def test_nan_to_num_defaults_and_values():
    a = np.array([np.nan, np.inf, -np.inf, 1.5], np.float32)
    check(td.nan_to_num(td.asarray(a)), np.nan_to_num(a), rtol=0, atol=0)
    check(td.nan_to_num(td.asarray(a), nan=2.0, posinf=9.0, neginf=-9.0),
          np.nan_to_num(a, nan=2.0, posinf=9.0, neginf=-9.0), rtol=0, atol=0)
    with pytest.raises(ValueError):
        td.nan_to_num(td.asarray(a), posinf="big")
