"""Issue 4's elementwise math through Python against NumPy: dtypes, 0-d and zero-size shapes,
NaN/inf, broadcasting, weak scalars, operators."""
import numpy as np
import pytest

import tensord as td
from test_functions import check
from test_interop import random_values

FLOATS = [np.float32, np.float64]
INTS = [np.int8, np.uint8, np.int16, np.int32, np.int64]
SHAPES = [(), (0,), (7,), (3, 4), (2, 0, 3)]
SPECIAL = np.array([0.0, -0.0, 1.0, -1.0, 0.5, -0.5, np.inf, -np.inf, np.nan, 1e-30, 30.0])

# name -> (NumPy function, input domain: a function making random values valid)
UNARY = {
    "tan": (np.tan, lambda a: a),
    "asin": (np.arcsin, lambda a: np.tanh(a)), "acos": (np.arccos, lambda a: np.tanh(a)),
    "atan": (np.arctan, lambda a: a), "sinh": (np.sinh, lambda a: a),
    "cosh": (np.cosh, lambda a: a), "asinh": (np.arcsinh, lambda a: a),
    "acosh": (np.arccosh, lambda a: np.abs(a) + 1), "atanh": (np.arctanh, lambda a: np.tanh(a)),
    "expm1": (np.expm1, lambda a: a), "log1p": (np.log1p, lambda a: np.abs(a)),
    "log2": (np.log2, lambda a: np.abs(a) + 0.1), "log10": (np.log10, lambda a: np.abs(a) + 0.1),
    "exp2": (np.exp2, lambda a: a),
}
BINARY = {
    "atan2": np.arctan2, "hypot": np.hypot, "logaddexp": np.logaddexp,
    "copysign": np.copysign,
}


def tol(dtype):
    return dict(rtol=2e-5, atol=1e-6) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", SHAPES)
def test_unary(name, dtype, shape):
    fn, domain = UNARY[name]
    a = domain(random_values(shape, dtype, seed=sum(map(ord, name)))).astype(dtype)
    check(getattr(td, name)(td.asarray(a)), fn(a), **tol(dtype))


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_nan_inf(name):
    fn, _ = UNARY[name]
    a = SPECIAL.astype(np.float64)
    with np.errstate(all="ignore"):
        want = fn(a)
    check(getattr(td, name)(td.asarray(a)), want, rtol=1e-12, atol=1e-300)


@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shapes", [((), ()), ((3, 4), (4,)), ((2, 1, 3), (5, 1)), ((0, 3), (3,))])
def test_binary_broadcasting(name, dtype, shapes):
    a = random_values(shapes[0], dtype, seed=1)
    b = random_values(shapes[1], dtype, seed=2)
    check(getattr(td, name)(td.asarray(a), td.asarray(b)), BINARY[name](a, b), **tol(dtype))


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_nan_inf(name):
    a, b = np.meshgrid(SPECIAL, SPECIAL)
    with np.errstate(all="ignore"):
        want = BINARY[name](a, b)
    check(getattr(td, name)(td.asarray(a), td.asarray(b)), want, rtol=1e-12, atol=1e-300)


def test_binary_with_weak_scalars():
    a = np.array([0.5, -2.0, 3.0], np.float32)
    x = td.asarray(a)
    got = td.hypot(x, 4.0)
    assert got.dtype is td.float32
    check(got, np.hypot(a, np.float32(4.0)), rtol=1e-6)
    check(td.copysign(1.0, x), np.copysign(np.float32(1.0), a))


def test_signbit():
    a = np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, -np.nan])
    check(td.signbit(td.asarray(a)), np.signbit(a))
    check(td.signbit(td.asarray(np.array([-3, 0, 4], np.int32))), [True, False, False])


@pytest.mark.parametrize("dtype", INTS + FLOATS)
@pytest.mark.parametrize("shape", SHAPES)
def test_floor_divide_and_remainder(dtype, shape):
    a = random_values(shape, dtype, seed=3)
    b = random_values(shape, dtype, seed=4)
    b = np.where(b == 0, np.ones_like(b), b)  # NumPy warns and differs on integer division by 0
    if np.issubdtype(dtype, np.signedinteger):  # keep clear of min // -1 overflow
        a = np.where(a == np.iinfo(dtype).min, np.zeros_like(a), a)
    x, y = td.asarray(a), td.asarray(b)
    check(td.floor_divide(x, y), np.floor_divide(a, b), **tol(np.float64))
    check(x // y, a // b, **tol(np.float64))
    check(td.remainder(x, y), np.remainder(a, b), rtol=1e-5, atol=1e-5)
    check(x % y, a % b, rtol=1e-5, atol=1e-5)


def test_floor_divide_by_zero_is_defined():
    x = td.asarray(np.array([5, -5, 0], np.int32))
    check(x // 0, [0, 0, 0])
    check(x % 0, [0, 0, 0])
    f = td.asarray(np.array([5.0, -5.0]))
    assert np.isnan((f % 0.0).numpy()).all()


@pytest.mark.parametrize("dtype", INTS + [np.bool_])
@pytest.mark.parametrize("shape", SHAPES)
def test_bitwise(dtype, shape):
    a = random_values(shape, dtype, seed=5)
    b = random_values(shape, dtype, seed=6)
    x, y = td.asarray(a), td.asarray(b)
    check(td.bitwise_and(x, y), a & b)
    check(td.bitwise_or(x, y), a | b)
    check(td.bitwise_xor(x, y), a ^ b)
    check(x & y, a & b)
    check(x | y, a | b)
    check(x ^ y, a ^ b)
    check(td.bitwise_invert(x), ~a)
    check(~x, ~a)


@pytest.mark.parametrize("dtype", INTS)
def test_shifts(dtype):
    a = random_values((4, 5), dtype, seed=7)
    s = np.array([0, 1, 2, 3, 4], dtype)
    x, y = td.asarray(a), td.asarray(s)
    check(td.bitwise_left_shift(x, y), np.left_shift(a, s))
    check(td.bitwise_right_shift(x, y), np.right_shift(a, s))
    check(x << 1, a << dtype(1))
    check(x >> 2, a >> dtype(2))


@pytest.mark.parametrize("dtype", INTS)
def test_gcd_lcm(dtype):
    # Every pair of a grid with signs, zeros and the type's extremes, against NumPy (which wraps
    # gcd(MIN, 0) to MIN and an lcm past the range as tensord does).
    info = np.iinfo(dtype)
    grid = np.array(sorted({0, 1, 2, 6, 9, 12, 35, int(info.max), int(info.min), int(info.max) - 1}
                           | ({-1, -6, -12, -35} if info.min < 0 else set())), dtype)
    a, b = np.meshgrid(grid, grid)
    x, y = td.asarray(a), td.asarray(b)
    with np.errstate(over="ignore"):
        check(td.gcd(x, y), np.gcd(a, b))
        check(td.lcm(x, y), np.lcm(a, b))
    check(np.gcd(x, y), np.gcd(a, b))  # NumPy's ufunc dispatches to the daemon
    check(td.gcd(x, 12), np.gcd(a, dtype(12)))
    assert td.gcd(x, y).numpy().dtype == np.dtype(dtype)
    with pytest.raises(TypeError, match="gcd takes integers"):
        td.gcd(td.asarray(np.ones(3, np.float32)), x[0, :3])


def test_bitwise_of_floats_is_a_type_error():
    with pytest.raises(TypeError):
        td.bitwise_and(td.asarray([1.0]), td.asarray([2.0]))
    with pytest.raises(TypeError):
        ~td.asarray([1.5])


def test_in_place_operators_rebind():
    x = td.asarray(np.array([7, 8, 9], np.int32))
    first = x
    x //= 2
    x %= 3
    x <<= 1
    x &= 6
    assert first is not x
    check(x, ((np.array([7, 8, 9], np.int32) // 2 % 3) << 1) & 6)
    check(first, [7, 8, 9])
