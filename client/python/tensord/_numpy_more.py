"""More of NumPy's functions as a few of the namespace's ops (docs/python.md): flips, diagflat,
ediff1d, modf, divmod, spacing, nancumprod, partition, argpartition, delete, compress, extract,
put_along_axis, correlate, convolve and unwrap, and NumPy's other names for td's functions.
Index arguments that NumPy reads on the host (delete's obj, compress's condition) are read on
the host here too: a tensord array given there is fetched (a sync)."""
import builtins
import math

import numpy as np

from . import _dtypes
from ._array import Array, _operand_array
from ._methods import _td

__all__ = [
    "fliplr", "flipud", "row_stack", "product", "cumproduct", "round_", "invert", "bitwise_not",
    "left_shift", "right_shift", "sinc", "i0", "diagflat", "ediff1d", "modf", "divmod", "spacing",
    "nancumprod", "partition", "argpartition", "delete", "compress", "extract", "put_along_axis",
    "correlate", "convolve", "unwrap",
]

_AxisError = getattr(np, "exceptions", np).AxisError


def _a(x):
    return _operand_array(x)


def _axis(axis, ndim):
    if not -ndim <= axis < ndim:
        raise _AxisError(axis, ndim)
    return axis % ndim


def _alias(path, numpy_name):
    def f(*args, **kwargs):
        fn = _td()
        for part in path.split("."):
            fn = getattr(fn, part)
        return fn(*args, **kwargs)
    f.__name__ = numpy_name
    f.__doc__ = f"np.{numpy_name}: td.{path}."
    return f


row_stack = _alias("vstack", "row_stack")
product = _alias("prod", "product")
round_ = _alias("around", "round_")
invert = _alias("bitwise_invert", "invert")
bitwise_not = _alias("bitwise_invert", "bitwise_not")
left_shift = _alias("bitwise_left_shift", "left_shift")
right_shift = _alias("bitwise_right_shift", "right_shift")
sinc = _alias("special.sinc", "sinc")  # normalized: sin(pi x) / (pi x), as NumPy's
i0 = _alias("special.i0", "i0")


def fliplr(m):
    m = _a(m)
    if m.ndim < 2:
        raise ValueError("Input must be >= 2-d.")
    return _td().flip(m, axis=1)


def flipud(m):
    m = _a(m)
    if m.ndim < 1:
        raise ValueError("Input must be >= 1-d.")
    return _td().flip(m, axis=0)


def diagflat(v, k=0):
    return _td().diag(_td().reshape(_a(v), (-1,)), k=k)


def _float(x):
    """x, or x as float64 when it is not floating (NumPy's loops for integer inputs)."""
    return x if _dtypes.is_floating(x.dtype) else _td().astype(x, _dtypes.float64)


def cumproduct(a, axis=None, dtype=None):
    a = _a(a)
    if dtype is not None:
        a = _td().astype(a, dtype)
    if axis is None:
        a, axis = _td().reshape(a, (-1,)), 0
    return _td().cumprod(a, axis=axis)


def nancumprod(a, axis=None, dtype=None):
    a = _a(a)
    if _dtypes.is_floating(a.dtype) or _dtypes.is_complex(a.dtype):
        a = _td().where(_td().isnan(a), 1, a)
    return cumproduct(a, axis, dtype)


def ediff1d(ary, to_end=None, to_begin=None):
    td = _td()
    a = td.reshape(_a(ary), (-1,))
    parts = [td.diff(a)] if a.shape[0] > 0 else [a]
    for extra, at in ((to_begin, 0), (to_end, len(parts) + 1)):
        if extra is not None:
            parts.insert(at, td.astype(td.reshape(_a(extra), (-1,)), a.dtype))
    return td.concat(parts) if len(parts) > 1 else parts[0]


def modf(x, /):
    """(fractional part, integral part), both with x's sign: modf(-3.0) = (-0.0, -3.0),
    modf(inf) = (0.0, inf); integers give float64, as NumPy's."""
    td = _td()
    x = _float(_a(x))
    whole = td.trunc(x)
    part = td.where(td.isinf(x), 0.0, x - whole)
    return td.copysign(part, x), whole


def divmod(x1, x2, /):  # noqa: A001 (NumPy's name)
    td = _td()
    return td.floor_divide(x1, x2), td.remainder(x1, x2)


def spacing(x, /):
    """The distance from x to the next float away from 0 (negative for negative x); the least
    subnormal for +-0, NaN for infinities and NaN."""
    td = _td()
    x = _float(_a(x))
    away = td.nextafter(x, td.copysign(math.inf, x)) - x
    return td.where(x == 0, td.nextafter(td.zeros_like(x), 1.0), away)


def _kth_checked(a, kth, axis):
    n = a.shape[axis]
    for k in np.atleast_1d(np.asarray(kth)).tolist():
        if not -n <= int(k) < n:
            raise ValueError(f"kth(={k}) out of bounds ({n})")


def partition(a, kth, axis=-1, kind="introselect", order=None):
    """A full sort: a valid partition for every kth (NumPy leaves the order within each side
    unspecified)."""
    a = _a(a)
    if order is not None:
        raise NotImplementedError("tensord: partition has no structured arrays (order=)")
    if axis is None:
        a, axis = _td().reshape(a, (-1,)), 0
    _kth_checked(a, kth, _axis(axis, a.ndim))
    return _td().sort(a, axis=axis)


def argpartition(a, kth, axis=-1, kind="introselect", order=None):
    a = _a(a)
    if order is not None:
        raise NotImplementedError("tensord: argpartition has no structured arrays (order=)")
    if axis is None:
        a, axis = _td().reshape(a, (-1,)), 0
    _kth_checked(a, kth, _axis(axis, a.ndim))
    return _td().argsort(a, axis=axis)


def _host(x):
    return x.numpy() if isinstance(x, Array) else np.asarray(x)


def _take_positions(a, positions, axis):
    return _td().take(a, _td().asarray(np.asarray(positions, dtype=np.int64)), axis=axis)


def delete(arr, obj, axis=None):
    """arr without the entries obj names along axis (ints, a slice, a mask: NumPy's rules,
    applied to the positions on the host)."""
    a = _a(arr)
    if axis is None:
        a, axis = _td().reshape(a, (-1,)), 0
    axis = _axis(axis, a.ndim)
    if not isinstance(obj, slice):
        obj = _host(obj)
    keep = np.delete(np.arange(a.shape[axis]), obj)
    return _take_positions(a, keep, axis)


def compress(condition, a, axis=None):
    cond = _host(condition)
    if cond.ndim != 1:
        raise ValueError("condition must be a 1-d array")
    a = _a(a)
    if axis is None:
        a, axis = _td().reshape(a, (-1,)), 0
    axis = _axis(axis, a.ndim)
    positions = np.nonzero(cond)[0]
    if positions.size and positions[-1] >= a.shape[axis]:
        raise IndexError(f"index {positions[-1]} is out of bounds for axis {axis} with size "
                         f"{a.shape[axis]}")
    return _take_positions(a, positions, axis)


def extract(condition, arr):
    td = _td()
    a = td.reshape(_a(arr), (-1,))
    if isinstance(condition, Array) and math.prod(condition.shape) == a.shape[0]:
        return td.masked_select(a, td.reshape(condition, (-1,)) != 0)  # no sync
    return compress(np.ravel(_host(condition)) != 0, a)


def put_along_axis(arr, indices, values, axis):
    """NumPy's, by rebinding: the tensord array `arr` then names the written value (as
    `arr[key] = v` does); a NumPy `arr` is written by NumPy."""
    td = _td()
    if not isinstance(arr, Array):
        raise NotImplementedError("tensord: put_along_axis writes tensord arrays only")
    x = td.reshape(arr, (-1,)) if axis is None else arr
    ax = 0 if axis is None else _axis(axis, arr.ndim)
    idx = _a(indices)
    if idx.ndim != x.ndim:
        raise ValueError("`indices` and `arr` must have the same number of dimensions")
    # NumPy's fancy index: idx broadcast with arr's other axes, its own length along axis.
    shape = list(np.broadcast_shapes(*(tuple(1 if d == ax else n for d, n in enumerate(s))
                                       for s in (idx.shape, x.shape))))
    shape[ax] = idx.shape[ax]
    idx = td.broadcast_to(idx, tuple(shape))
    src = td.broadcast_to(td.astype(_a(values), x.dtype), tuple(shape))
    arr._t = td.reshape(td.scatter(x, ax, idx, src), arr.shape)._t


_MODES = ("full", "same", "valid")


def _correlate_full(a, w):
    """z[k] = sum_j a[j + k] w[j] for k = -(m-1) .. n-1: one conv1d, the complex parts as two
    channels."""
    td = _td()
    n, m = a.shape[0], w.shape[0]
    if not _dtypes.is_complex(a.dtype):
        y = td.conv1d(td.reshape(a, (1, 1, n)), td.reshape(w, (1, 1, m)), padding=m - 1)
        return td.reshape(y, (n + m - 1,))
    x = td.reshape(td.stack([td.real(a), td.imag(a)]), (1, 2, n))
    wr, wi = td.real(w), td.imag(w)
    k = td.reshape(td.stack([wr, -wi, wi, wr]), (2, 2, m))  # re = ar*wr - ai*wi, im = ar*wi + ai*wr
    y = td.reshape(td.conv1d(x, k, padding=m - 1), (2, n + m - 1))
    return td.complex(y[0], y[1])


def _correlation(a, v, mode, convolve):
    td = _td()
    a, v = _a(a), _a(v)
    if mode not in _MODES:
        raise ValueError(f"mode must be one of {_MODES}, got {mode!r}")
    if a.ndim != 1 or v.ndim != 1:
        raise ValueError("object too deep for desired array (a and v must be 1-d)")
    if a.shape[0] == 0 or v.shape[0] == 0:
        raise ValueError(f"{'a' if a.shape[0] == 0 else 'v'} cannot be empty")
    out = td.result_type(a, v)
    if _dtypes.is_complex(out):
        compute = out
    elif out in (_dtypes.float32, _dtypes.float64):
        compute = out
    elif _dtypes.is_floating(out):
        compute = _dtypes.float32  # float16/bfloat16 accumulate in float32
    else:
        compute = _dtypes.float64  # integers: exact while sums stay under 2**53
    a, v = td.astype(a, compute), td.astype(v, compute)
    w = td.flip(v) if convolve else (td.conj(v) if _dtypes.is_complex(compute) else v)
    z = _correlate_full(a, w)
    n, m = a.shape[0], v.shape[0]
    lo = builtins.min(n, m)
    if mode == "full":
        start, length = 0, n + m - 1
    elif mode == "valid":
        start, length = lo - 1, builtins.max(n, m) - lo + 1
    else:  # NumPy swaps the operands when v is longer, which moves correlate's window
        start = (lo - 1) // 2 if convolve or n >= m else lo // 2
        length = builtins.max(n, m)
    z = z[start:start + length]
    if compute != out:
        z = td.astype(z if _dtypes.is_floating(out) else td.round(z), out)
    return z


def correlate(a, v, mode="valid"):
    """NumPy's: c[k] = sum_n a[n + k] conj(v[n]), 1-d inputs; through conv1d."""
    return _correlation(a, v, mode, convolve=False)


def convolve(a, v, mode="full"):
    return _correlation(a, v, mode, convolve=True)


def unwrap(p, discont=None, axis=-1, *, period=2 * math.pi):
    """NumPy's: jumps larger than max(discont, period / 2) along axis replaced by their
    complement modulo period."""
    td = _td()
    p = _float(_a(p))
    axis = _axis(axis, p.ndim)
    n = p.shape[axis]
    if n < 2:
        return p
    high = period / 2
    discont = high if discont is None else builtins.max(discont, high)
    dd = td.diff(p, axis=axis)
    ddmod = td.remainder(dd + high, period) - high
    ddmod = td.where((ddmod == -high) & (dd > 0), high, ddmod)
    correct = td.where(td.abs(dd) < discont, 0.0, ddmod - dd)
    head = td.narrow(p, axis, 0, 1)
    return td.concat([head, td.narrow(p, axis, 1, n - 1) + td.cumsum(correct, axis=axis)],
                     axis=axis)
