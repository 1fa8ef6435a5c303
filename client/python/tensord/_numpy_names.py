"""NumPy's names for what the namespace already does (np.concatenate is td.concat, np.arcsin
is td.asin, ...), and NumPy functions that are a few of its ops (isclose, cov, interp,
histogram, ...), so that NumPy code runs with `np` replaced by `td`. Each follows NumPy's
semantics where they differ from the Array API's (np.trace sums axes 0 and 1, np.dot of N-d
arrays contracts the last axis of a with the second-to-last of b); docs/python.md lists what
differs still. Functions that answer with a Python value (allclose, array_equal) sync."""
import builtins
import math

import numpy as np

from ._array import Array, _operand_array
from ._methods import _td

__all__ = [
    "absolute", "fabs", "arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh", "arctan2",
    "power", "float_power", "true_divide", "mod", "conjugate", "around", "rint", "fix",
    "deg2rad", "radians", "rad2deg", "degrees", "cbrt", "heaviside", "ldexp", "fmax", "fmin",
    "isneginf", "isposinf", "iscomplex", "isreal", "isscalar", "isclose", "allclose",
    "array_equal", "array", "copy", "identity", "tri", "logspace", "geomspace",
    "concatenate", "hstack", "vstack", "dstack", "column_stack", "atleast_1d", "atleast_2d",
    "atleast_3d", "array_split", "hsplit", "vsplit", "dsplit", "swapaxes", "rollaxis", "transpose",
    "ravel", "resize",
    "append", "dot", "vdot", "inner", "outer", "trace", "kron", "cross",
]


# NumPy's axis error (a ValueError and an IndexError); np.exceptions since NumPy 1.25.
_AxisError = getattr(np, "exceptions", np).AxisError


def _a(x):
    return _operand_array(x)


# --- other names of the namespace's functions ------------------------------------------------
def _alias(name, numpy_name):
    def f(*args, **kwargs):
        return getattr(_td(), name)(*args, **kwargs)
    f.__name__ = numpy_name
    f.__doc__ = f"np.{numpy_name}: td.{name}."
    return f


absolute = _alias("abs", "absolute")
fabs = _alias("abs", "fabs")
arcsin = _alias("asin", "arcsin")
arccos = _alias("acos", "arccos")
arctan = _alias("atan", "arctan")
arcsinh = _alias("asinh", "arcsinh")
arccosh = _alias("acosh", "arccosh")
arctanh = _alias("atanh", "arctanh")
arctan2 = _alias("atan2", "arctan2")
power = _alias("pow", "power")
true_divide = _alias("divide", "true_divide")
mod = _alias("remainder", "mod")
conjugate = _alias("conj", "conjugate")
rint = _alias("round", "rint")
fix = _alias("trunc", "fix")


def float_power(x1, x2, /):
    """x1 ** x2 in float64 (complex128 for complex operands)."""
    td = _td()
    a, b = _a(x1), _a(x2)
    cplx = td.isdtype(a.dtype, "complex floating") or td.isdtype(b.dtype, "complex floating")
    wide = td.complex128 if cplx else td.float64
    return td.pow(td.astype(a, wide), td.astype(b, wide))


def around(a, decimals=0):
    """Half to even at `decimals` digits, scaled as NumPy scales: round(a * 10**d) / 10**d,
    or round(a / 10**-d) * 10**-d for negative d."""
    td = _td()
    a = _a(a)
    if decimals == 0:
        return td.round(a)
    if decimals > 0:
        return td.round(a * 10.0 ** decimals) / 10.0 ** decimals
    return td.round(a / 10.0 ** -decimals) * 10.0 ** -decimals


def deg2rad(x, /):
    return _a(x) * (math.pi / 180)


def rad2deg(x, /):
    return _a(x) * (180 / math.pi)


radians, degrees = deg2rad, rad2deg


def cbrt(x, /):
    """The real cube root: sign(x) |x|^(1/3) (within an ulp or two of NumPy's)."""
    td = _td()
    x = _a(x)
    return td.sign(x) * td.abs(x) ** (1.0 / 3.0)


def heaviside(x1, x2, /):
    td = _td()
    x1 = _a(x1)
    step = td.where(x1 < 0, 0.0, td.where(x1 > 0, 1.0, _a(x2)))
    return td.where(td.isnan(x1), x1, td.astype(step, td.result_type(x1, _a(x2))))


def ldexp(x1, x2, /):
    """x1 * 2**x2 (x2 integers)."""
    td = _td()
    x1 = _a(x1)
    return x1 * td.astype(td.exp2(td.astype(_a(x2), td.float64)), x1.dtype)


def fmax(x1, x2, /):
    """The larger of the two, ignoring a NaN (NaN only when both are)."""
    td = _td()
    a, b = _a(x1), _a(x2)
    return td.where(td.isnan(a), b, td.where(td.isnan(b), a, td.maximum(a, b)))


def fmin(x1, x2, /):
    td = _td()
    a, b = _a(x1), _a(x2)
    return td.where(td.isnan(a), b, td.where(td.isnan(b), a, td.minimum(a, b)))


def isneginf(x, /):
    td = _td()
    x = _a(x)
    return td.isinf(x) & td.signbit(x)


def isposinf(x, /):
    td = _td()
    x = _a(x)
    return td.isinf(x) & ~td.signbit(x)


def iscomplex(x, /):
    td = _td()
    x = _a(x)
    return td.imag(x) != 0 if td.isdtype(x.dtype, "complex floating") else td.zeros(
        x.shape, dtype=td.bool)


def isreal(x, /):
    return ~iscomplex(x)


def isscalar(element):
    """NumPy's: Python and NumPy scalars, never an array (ours are arrays, even 0-d)."""
    return np.isscalar(element)


# --- comparisons of whole arrays ---------------------------------------------------------------
def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """|a - b| <= atol + rtol |b| elementwise; equal infinities are close, NaN only with
    equal_nan."""
    td = _td()
    a, b = _a(a), _a(b)
    finite = td.isfinite(a) & td.isfinite(b)
    close = (a == b) | (finite & (td.abs(a - b) <= atol + rtol * td.abs(b)))
    if equal_nan:
        close = close | (td.isnan(a) & td.isnan(b))
    return close


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """A Python bool (a sync point)."""
    return builtins.bool(_td().all(isclose(a, b, rtol, atol, equal_nan)))


def array_equal(a1, a2, equal_nan=False):
    """A Python bool (a sync point): same shape and equal elements."""
    td = _td()
    a, b = _a(a1), _a(a2)
    if a.shape != b.shape:
        return False
    same = a == b
    if equal_nan:
        same = same | (td.isnan(a) & td.isnan(b))
    return builtins.bool(td.all(same))


# --- creation ----------------------------------------------------------------------------------
def array(obj, dtype=None, copy=True):
    """np.array: td.asarray (the array is a new value whatever `copy` says)."""
    return _td().asarray(obj, dtype=dtype)


def copy(a):
    """A new array object holding the same value (assigning into one leaves the other)."""
    return Array(_a(a)._t)


def identity(n, dtype=None):
    return _td().eye(n, dtype=dtype)


def tri(N, M=None, k=0, dtype=None):
    td = _td()
    return td.tril(td.ones((N, N if M is None else M), dtype=dtype or td.float64), k=k)


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None):
    td = _td()
    y = td.asarray(base, dtype=td.float64) ** td.linspace(start, stop, num, endpoint=endpoint,
                                                           dtype=td.float64)
    return y if dtype is None else td.astype(y, dtype)


def geomspace(start, stop, num=50, endpoint=True, dtype=None):
    """Positive endpoints: exp of a linspace of their logs, the endpoints exact."""
    td = _td()
    if start <= 0 or stop <= 0:
        raise ValueError("geomspace takes positive start and stop (NumPy's negative and complex "
                         "endpoints are not supported)")
    y = td.exp(td.linspace(math.log(start), math.log(stop), num, endpoint=endpoint,
                           dtype=td.float64))
    if num > 0:
        idx = td.arange(num)
        y = td.where(idx == 0, float(start), y)
        if endpoint:
            y = td.where(idx == num - 1, float(stop), y)
    return y if dtype is None else td.astype(y, dtype)


# --- joining, splitting and axes ---------------------------------------------------------------
def atleast_1d(*arys):
    td = _td()
    out = [td.reshape(x, (1,)) if x.ndim == 0 else x for x in map(_a, arys)]
    return out[0] if len(out) == 1 else out


def atleast_2d(*arys):
    td = _td()
    out = []
    for x in map(_a, arys):
        out.append(td.reshape(x, (1,) * (2 - x.ndim) + x.shape) if x.ndim < 2 else x)
    return out[0] if len(out) == 1 else out


def atleast_3d(*arys):
    """(N,) -> (1, N, 1) and (M, N) -> (M, N, 1), as NumPy's."""
    td = _td()
    out = []
    for x in map(_a, arys):
        if x.ndim == 0:
            x = td.reshape(x, (1, 1, 1))
        elif x.ndim == 1:
            x = td.reshape(x, (1, x.shape[0], 1))
        elif x.ndim == 2:
            x = td.reshape(x, x.shape + (1,))
        out.append(x)
    return out[0] if len(out) == 1 else out


def concatenate(arrays, axis=0):
    """axis=None joins the flattened arrays."""
    td = _td()
    arrays = [_a(x) for x in arrays]
    if axis is None:
        return td.concat([td.reshape(x, (-1,)) for x in arrays], axis=0)
    return td.concat(arrays, axis=axis)


def hstack(tup):
    arrays = atleast_1d(*tup)
    arrays = arrays if isinstance(arrays, list) else [arrays]
    return concatenate(arrays, axis=0 if arrays[0].ndim == 1 else 1)


def vstack(tup):
    arrays = atleast_2d(*tup)
    return concatenate(arrays if isinstance(arrays, list) else [arrays], axis=0)


def dstack(tup):
    arrays = atleast_3d(*tup)
    return concatenate(arrays if isinstance(arrays, list) else [arrays], axis=2)


def column_stack(tup):
    td = _td()
    cols = [td.reshape(x, (-1, 1)) if x.ndim < 2 else x for x in map(_a, tup)]
    return td.concat(cols, axis=1)


def array_split(ary, indices_or_sections, axis=0):
    """Sections of sizes differing by at most one (the first ones larger), or split at the
    given indices."""
    x = _a(ary)
    n = x.shape[axis]
    if isinstance(indices_or_sections, int):
        sections = indices_or_sections
        if sections <= 0:
            raise ValueError("number of sections must be larger than 0")
        size, extra = divmod(n, sections)
        bounds = [0]
        for i in range(sections):
            bounds.append(bounds[-1] + size + (1 if i < extra else 0))
    else:
        # NumPy's slice rules: a negative index counts from the end, and indices clamp to [0, n].
        bounds = [0] + [builtins.min(builtins.max(int(i) + (n if int(i) < 0 else 0), 0), n)
                        for i in indices_or_sections] + [n]
    key = [slice(None)] * x.ndim
    parts = []
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        key[axis] = slice(lo, builtins.max(lo, hi))
        parts.append(x[tuple(key)])
    return parts


def _split_evenly(ary, indices_or_sections, axis):
    x = _a(ary)
    if isinstance(indices_or_sections, int) and x.shape[axis] % indices_or_sections:
        raise ValueError("array split does not result in an equal division")
    return array_split(x, indices_or_sections, axis)


def hsplit(ary, indices_or_sections):
    x = _a(ary)
    return _split_evenly(x, indices_or_sections, 0 if x.ndim == 1 else 1)


def vsplit(ary, indices_or_sections):
    return _split_evenly(ary, indices_or_sections, 0)


def dsplit(ary, indices_or_sections):
    return _split_evenly(ary, indices_or_sections, 2)


def swapaxes(a, axis1, axis2):
    x = _a(a)
    axes = list(range(x.ndim))
    axes[axis1], axes[axis2] = axes[axis2], axes[axis1]
    return _td().permute_dims(x, tuple(axes))


def rollaxis(a, axis, start=0):
    """np.rollaxis: `axis` moved to stand before position `start` (NumPy's older moveaxis)."""
    x = _a(a)
    n = x.ndim
    if not -n <= axis < n:
        raise _AxisError(axis, n)
    axis %= n
    if start < 0:
        start += n
    if not 0 <= start <= n:
        raise _AxisError(f"'start' arg requires {-n} <= start < {n + 1}, got {start}")
    axes = list(range(n))
    axes.remove(axis)
    axes.insert(start - 1 if axis < start else start, axis)
    return _td().permute_dims(x, tuple(axes))


def transpose(a, axes=None):
    x = _a(a)
    return _td().permute_dims(x, tuple(reversed(range(x.ndim))) if axes is None else tuple(axes))


def ravel(a):
    return _td().reshape(_a(a), (-1,))


def resize(a, new_shape):
    """np.resize: a's elements in order, repeated as often as new_shape needs (zeros when a is
    empty)."""
    x = _a(a)
    shape = (new_shape,) if isinstance(new_shape, int) else tuple(new_shape)
    if any(d < 0 for d in shape):
        raise ValueError("all elements of `new_shape` must be non-negative")
    total = math.prod(shape)
    if x.size == 0 or total == 0:
        return _td().zeros(shape, dtype=x.dtype)
    flat = ravel(x)
    return _td().reshape(_td().tile(flat, (-(-total // x.size),))[:total], shape)


def append(arr, values, axis=None):
    if axis is None:
        return concatenate([ravel(arr), ravel(values)], axis=0)
    return concatenate([arr, values], axis=axis)


# --- products ----------------------------------------------------------------------------------
def dot(a, b):
    """NumPy's dot: scalars multiply, vectors give their inner product, otherwise the sum over
    the last axis of a and the second-to-last of b (the last when b is a vector)."""
    td = _td()
    a, b = _a(a), _a(b)
    if a.ndim == 0 or b.ndim == 0:
        return a * b
    if b.ndim == 1 or a.ndim <= 2 and b.ndim == 2:
        return td.matmul(a, b)
    return td.tensordot(a, b, axes=([a.ndim - 1], [b.ndim - 2]))


def vdot(a, b):
    """The inner product of the flattened arrays, the first conjugated."""
    td = _td()
    return td.sum(td.conj(ravel(a)) * ravel(b))


def inner(a, b):
    td = _td()
    a, b = _a(a), _a(b)
    if a.ndim == 0 or b.ndim == 0:
        return a * b
    return td.tensordot(a, b, axes=([a.ndim - 1], [b.ndim - 1]))


def outer(a, b):
    return _td().linalg.outer(ravel(a), ravel(b))


def trace(a, offset=0, axis1=0, axis2=1):
    """The sum along a diagonal of axes axis1 and axis2 (NumPy's default: the first two)."""
    td = _td()
    return td.sum(td.diagonal(_a(a), offset=offset, axis1=axis1, axis2=axis2), axis=-1)


def kron(a, b):
    return _td().linalg.kron(a, b)


def cross(a, b, axis=-1):
    """Vectors of 3 elements (NumPy's 2-element vectors are not supported)."""
    return _td().linalg.cross(a, b, axis=axis)
