"""Every bound function against NumPy on random inputs, over dtypes, 0-d and zero-size shapes."""
import math

import numpy as np
import pytest

import tensord as td
from test_interop import random_values

FLOATS = [np.float32, np.float64]
NUMERIC = [np.int8, np.int16, np.int32, np.int64, np.float32, np.float64]
SHAPES = [(), (0,), (5,), (3, 4), (2, 0, 3)]


def check(got, want, rtol=1e-5, atol=1e-6):
    got = np.asarray(got)
    want = np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    if want.dtype.kind == "f":
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, equal_nan=True)
    else:
        np.testing.assert_array_equal(got, want)


def erf(a):
    return np.vectorize(math.erf, otypes=[a.dtype])(a) if a.size else a.copy()


UNARY_FLOAT = {
    "exp": np.exp, "log": lambda a: np.log(np.abs(a) + 0.5), "sqrt": lambda a: np.sqrt(np.abs(a)),
    "sin": np.sin, "cos": np.cos, "tanh": np.tanh, "sigmoid": lambda a: 1 / (1 + np.exp(-a)),
    "erf": erf, "rsqrt": lambda a: 1 / np.sqrt(np.abs(a) + 0.5),
    "silu": lambda a: a / (1 + np.exp(-a)),
    "gelu": lambda a: a * 0.5 * (1 + erf(a / np.sqrt(2).astype(a.dtype))),
}
# Inputs made valid for the function (log and sqrt of |a| + 0.5).
PREPARE = {"log": lambda x: td.abs(x) + 0.5, "sqrt": td.abs, "rsqrt": lambda x: td.abs(x) + 0.5}


@pytest.mark.parametrize("name", sorted(UNARY_FLOAT))
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", SHAPES)
def test_unary_float(name, dtype, shape):
    a = random_values(shape, dtype, seed=sum(map(ord, name)))  # stable across runs
    x = PREPARE.get(name, lambda v: v)(td.asarray(a))
    check(getattr(td, name)(x), UNARY_FLOAT[name](a), rtol=1e-4 if dtype == np.float32 else 1e-9)


UNARY_EXACT = {
    "abs": np.abs, "negative": np.negative, "floor": np.floor, "ceil": np.ceil,
    "round": np.round, "sign": np.sign, "relu": lambda a: np.maximum(a, 0).astype(a.dtype),
    "square": np.square, "positive": np.positive, "trunc": np.trunc,
}


# Rounding functions on floats only (on integers they are the identity).
UNARY_EXACT_CASES = [(n, d) for n in sorted(UNARY_EXACT) for d in NUMERIC
                     if np.issubdtype(d, np.floating) or n not in ("floor", "ceil", "round", "trunc")]


@pytest.mark.parametrize("name,dtype", UNARY_EXACT_CASES)
@pytest.mark.parametrize("shape", SHAPES)
def test_unary_exact(name, dtype, shape):
    a = random_values(shape, dtype, seed=1)
    check(getattr(td, name)(td.asarray(a)), UNARY_EXACT[name](a))


def test_nan_inf_predicates():
    a = np.array([0.0, np.nan, np.inf, -np.inf, -1.5], np.float32)
    x = td.asarray(a)
    check(td.isnan(x), np.isnan(a))
    check(td.isinf(x), np.isinf(a))
    check(td.isfinite(x), np.isfinite(a))
    i = td.asarray(np.array([1, 2], np.int32))
    check(td.isnan(i), [False, False])
    check(td.isfinite(i), [True, True])


BINARY = {
    "add": np.add, "subtract": np.subtract, "multiply": np.multiply, "maximum": np.maximum,
    "minimum": np.minimum, "equal": np.equal, "not_equal": np.not_equal, "less": np.less,
    "less_equal": np.less_equal, "greater": np.greater, "greater_equal": np.greater_equal,
}


@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("dtype", NUMERIC)
@pytest.mark.parametrize("shapes", [((), ()), ((0,), (1,)), ((3, 4), (4,)), ((2, 1, 3), (4, 1))])
def test_binary(name, dtype, shapes):
    a = random_values(shapes[0], dtype, seed=2)
    b = random_values(shapes[1], dtype, seed=3)
    check(getattr(td, name)(td.asarray(a), td.asarray(b)), BINARY[name](a, b))


@pytest.mark.parametrize("dtype", FLOATS)
def test_divide_and_pow(dtype):
    a = random_values((3, 4), dtype, seed=4)
    b = np.abs(random_values((4,), dtype, seed=5)) + 0.5
    check(td.divide(td.asarray(a), td.asarray(b)), a / b)
    check(td.pow(td.asarray(b), td.asarray(a)), b ** a, rtol=1e-4)
    check(td.asarray(b) ** 2, b ** 2, rtol=1e-5)


def test_operators_with_python_scalars():
    a = random_values((3, 4), np.float32, seed=6)
    x = td.asarray(a)
    check(x + 1, a + 1)
    check(1 + x, 1 + a)
    check(x - 2.5, a - np.float32(2.5))
    check(2.5 - x, np.float32(2.5) - a)
    check(x * 3, a * 3)
    check(3 * x, 3 * a)
    check(x / 4, a / np.float32(4))
    check(4 / (x + 10), np.float32(4) / (a + 10), rtol=1e-5)
    check(2 ** td.asarray([1.0, 2.0]), [2.0, 4.0])
    check(-x, -a)
    check(abs(x), np.abs(a))
    check(x > 0, a > 0)
    check(0 < x, 0 < a)
    check(x == x, a == a)
    check(x != 0.0, a != 0)
    assert (x + 1).dtype is td.float32  # weak scalars keep the array's dtype
    i = td.asarray(np.array([1, 2, 3], np.int8))
    assert (i + 1).dtype is td.int8
    assert (i * 1.5).dtype is td.float32
    check(i * 1.5, np.array([1.5, 3.0, 4.5], np.float32))
    b = td.asarray([True, False])
    check(b & td.asarray([True, True]), [True, False])
    check(b | False, [True, False])
    check(~b, [False, True])


def test_where_clip_logical():
    a = random_values((4, 5), np.float32, seed=7)
    x = td.asarray(a)
    check(td.where(x > 0, x, 0.0), np.where(a > 0, a, 0))
    check(td.clip(x, -1.0, 1.0), np.clip(a, -1, 1))
    check(td.clip(x, min=0.0), np.clip(a, 0, None))
    p, q = a > 0, a < 1
    check(td.logical_and(td.asarray(p), td.asarray(q)), p & q)
    check(td.logical_or(td.asarray(p), td.asarray(q)), p | q)
    check(td.logical_xor(td.asarray(p), td.asarray(q)), p ^ q)
    check(td.logical_not(td.asarray(p)), ~p)


REDUCTIONS = {"sum": np.sum, "prod": np.prod, "max": np.max, "min": np.min, "mean": np.mean}


# mean needs float input.
REDUCTION_CASES = [(n, d) for n in sorted(REDUCTIONS)
                   for d in [np.int32, np.int64, np.float32, np.float64]
                   if n != "mean" or np.issubdtype(d, np.floating)]


@pytest.mark.parametrize("name,dtype", REDUCTION_CASES)
@pytest.mark.parametrize("axis", [None, 0, -1, (0, 1)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_reductions(name, dtype, axis, keepdims):
    a = random_values((3, 4, 2), dtype, seed=8)
    if name == "prod":
        a = (a % 3 + 1).astype(dtype) if np.issubdtype(dtype, np.integer) else a / 4
    got = getattr(td, name)(td.asarray(a), axis=axis, keepdims=keepdims)
    want = REDUCTIONS[name](a, axis=axis, keepdims=keepdims)
    if name in ("sum", "prod") and np.issubdtype(dtype, np.integer):
        want = want.astype(np.int64)
    check(got, want.astype(np.asarray(got).dtype), rtol=1e-4)


def test_reductions_0d_and_empty():
    check(td.sum(td.asarray(np.float32(2.5))), np.float32(2.5))
    check(td.sum(td.asarray(np.zeros((0, 3), np.float32)), axis=0), np.zeros(3, np.float32))
    check(td.prod(td.asarray(np.zeros((0,), np.float32))), np.float32(1))
    check(td.any(td.asarray(np.zeros((0,), bool))), False)
    check(td.all(td.asarray(np.zeros((0,), bool))), True)


@pytest.mark.parametrize("dtype", FLOATS)
def test_statistics_and_search(dtype):
    a = random_values((4, 6), dtype, seed=9)
    x = td.asarray(a)
    check(td.var(x, axis=1), np.var(a, axis=1), rtol=1e-4)
    check(td.var(x, correction=1), np.var(a, ddof=1), rtol=1e-4)
    check(td.std(x, axis=0, keepdims=True), np.std(a, axis=0, keepdims=True), rtol=1e-4)
    check(td.argmax(x), np.argmax(a))
    check(td.argmax(x, axis=1), np.argmax(a, axis=1))
    check(td.argmin(x, axis=0, keepdims=True), np.argmin(a, axis=0, keepdims=True))
    check(td.any(x > 2, axis=1), np.any(a > 2, axis=1))
    check(td.all(x > -10, axis=0), np.all(a > -10, axis=0))
    check(td.count_nonzero(x > 0), np.count_nonzero(a > 0))


def test_manipulation():
    a = random_values((2, 3, 4), np.float32, seed=10)
    x = td.asarray(a)
    check(td.reshape(x, (6, -1)), a.reshape(6, -1))
    check(td.permute_dims(x, (2, 0, 1)), a.transpose(2, 0, 1))
    check(td.matrix_transpose(x), np.swapaxes(a, -1, -2))
    check(x.mT, np.swapaxes(a, -1, -2))
    check(td.broadcast_to(td.asarray(a[0, 0]), (3, 4)), np.broadcast_to(a[0, 0], (3, 4)))
    check(td.expand_dims(x, axis=1), np.expand_dims(a, 1))
    check(td.squeeze(td.asarray(a[:, :1]), axis=1), a[:, 0])
    check(td.flip(x, axis=1), np.flip(a, 1))
    check(td.flip(x), np.flip(a))
    check(td.concat([x, x], axis=2), np.concatenate([a, a], 2))
    check(td.concat([x, x], axis=None), np.concatenate([a.ravel(), a.ravel()]))
    check(td.stack([x, x], axis=1), np.stack([a, a], 1))
    check(td.moveaxis(x, 0, -1), np.moveaxis(a, 0, -1))
    check(td.roll(x, 2, axis=2), np.roll(a, 2, axis=2))
    check(td.roll(x, -1), np.roll(a, -1))
    check(td.take(x, td.asarray([2, 0]), axis=1), np.take(a, [2, 0], axis=1))
    parts = td.unstack(x, axis=1)
    assert len(parts) == 3
    check(parts[1], a[:, 1])
    b1, b2 = td.broadcast_arrays(td.asarray(a[0]), td.asarray(a[:, :1, :1]))
    check(b1, np.broadcast_to(a[0], (2, 3, 4)))
    check(td.astype(x, td.int32), a.astype(np.int32))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shapes", [((3, 4), (4, 5)), ((2, 3, 4), (4, 2)), ((4,), (4,)),
                                    ((0, 4), (4, 3))])
def test_matmul(dtype, shapes):
    a = random_values(shapes[0], dtype, seed=11)
    b = random_values(shapes[1], dtype, seed=12)
    check(td.asarray(a) @ td.asarray(b), a @ b, rtol=1e-4, atol=1e-4)
    check(td.matmul(td.asarray(a), td.asarray(b)), a @ b, rtol=1e-4, atol=1e-4)
    check(a @ td.asarray(b), a @ b, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("shapes,axes", [(((3, 4), (4, 5)), 1), (((2, 3, 4), (3, 4, 5)), 2),
                                         (((2, 3), (3, 2)), ([0, 1], [1, 0])),
                                         (((3, 4), (5,)), 0), (((0, 4), (4, 2)), 1)])
def test_tensordot(shapes, axes):
    a = random_values(shapes[0], np.float64, seed=18)
    b = random_values(shapes[1], np.float64, seed=19)
    check(td.tensordot(td.asarray(a), td.asarray(b), axes=axes), np.tensordot(a, b, axes=axes),
          rtol=1e-9)


def test_vecdot():
    a = random_values((3, 4), np.float64, seed=13)
    b = random_values((4,), np.float64, seed=14)
    check(td.vecdot(td.asarray(a), td.asarray(b)), a @ b, rtol=1e-9)


@pytest.mark.parametrize("dtype", FLOATS)
def test_nn(dtype):
    a = random_values((3, 5), dtype, seed=15)
    x = td.asarray(a)
    e = np.exp(a - a.max(axis=-1, keepdims=True))
    check(td.softmax(x), e / e.sum(-1, keepdims=True), rtol=1e-5)
    check(td.softmax(x, axis=0), np.exp(a) / np.exp(a).sum(0), rtol=1e-4)
    check(td.log_softmax(x), np.log(e / e.sum(-1, keepdims=True)), rtol=1e-4, atol=1e-5)
    check(td.relu(x), np.maximum(a, 0))
    w = random_values((5,), dtype, seed=16)
    b = random_values((5,), dtype, seed=17)
    norm = (a - a.mean(-1, keepdims=True)) / np.sqrt(a.var(-1, keepdims=True) + 1e-5)
    check(td.layer_norm(x, 5), norm, rtol=1e-4, atol=1e-5)
    check(td.layer_norm(x, (5,), td.asarray(w), td.asarray(b)), norm * w + b, rtol=1e-4, atol=1e-5)
    t = 0.5 * a * (1 + np.tanh(np.sqrt(2 / np.pi) * (a + 0.044715 * a ** 3)))
    check(td.gelu(x, approximate="tanh"), t, rtol=1e-4, atol=1e-6)


def test_mean_of_integers_is_a_type_error():
    with pytest.raises(TypeError, match="mean"):
        td.mean(td.asarray([1, 2]))


@pytest.mark.parametrize("start,stop,num,endpoint", [(0, 1, 5, True), (-2.5, 7, 11, False),
                                                     (3, 3, 4, True), (0, 1, 1, True),
                                                     (0, 1, 0, True), (1e6, -1e6, 7, True)])
def test_linspace_matches_numpy(start, stop, num, endpoint):
    got = td.linspace(start, stop, num, endpoint=endpoint, dtype=td.float64)
    # Within rounding of the endpoints' magnitude (the engine may fuse i * step + start).
    scale = max(abs(start), abs(stop), 1)
    np.testing.assert_allclose(np.asarray(got), np.linspace(start, stop, num, endpoint=endpoint),
                               rtol=1e-15, atol=4e-16 * scale)
    assert td.linspace(0, 1, 3).dtype == td.float32


def test_linspace_rejects_bad_num():
    with pytest.raises(ValueError, match="num"):
        td.linspace(0, 1, -1)


@pytest.mark.parametrize("axis,n", [(-1, 1), (0, 1), (1, 2), (0, 0)])
def test_diff_matches_numpy(axis, n):
    a = np.arange(24, dtype=np.float32).reshape(4, 6) ** 2
    np.testing.assert_array_equal(np.asarray(td.diff(td.asarray(a), axis=axis, n=n)),
                                  np.diff(a, axis=axis, n=n))


def test_diff_prepend_append_and_bools():
    a = np.array([1, 4, 9, 16], dtype=np.int32)
    got = td.diff(td.asarray(a), prepend=0, append=td.asarray(np.array([20], dtype=np.int32)))
    np.testing.assert_array_equal(np.asarray(got), np.diff(a, prepend=0, append=[20]))
    b = np.array([True, True, False, True])
    np.testing.assert_array_equal(np.asarray(td.diff(td.asarray(b))), np.diff(b))
    with pytest.raises(ValueError):
        td.diff(td.asarray(np.float32(1)))
