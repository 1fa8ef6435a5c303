"""Array API functions written over other namespace functions (no engine op of their own):
linspace and diff. Each records a few ops at the caller's line."""
import math as _math

from . import _dtypes
from ._creation import arange, asarray
from ._functions import astype, broadcast_to, concat, where

__all__ = ["linspace", "diff"]


def linspace(start, stop, /, num, *, dtype=None, device=None, endpoint=True):
    """num evenly spaced values from start to stop (NumPy's formula, computed in float64 and
    cast once: start + i * step, with the last value exactly stop when endpoint)."""
    if isinstance(start, complex) or isinstance(stop, complex):
        raise NotImplementedError("tensord: linspace of complex numbers is not available yet")
    if not isinstance(num, int) or isinstance(num, bool) or num < 0:
        raise ValueError(f"linspace: num must be a non-negative int, got {num!r}")
    target = _dtypes.to_dtype(dtype) if dtype is not None else _dtypes.default_float
    div = (num - 1) if endpoint else num
    step = (stop - start) / div if div > 0 else 0.0
    if not _math.isfinite(step) and num > 1:
        raise ValueError("linspace: start and stop must be finite")
    i = arange(0, num, 1, dtype=_dtypes.float64)
    y = i * float(step) + float(start)
    if endpoint and num > 1:
        y = where(i == float(num - 1), float(stop), y)
    return astype(y, target)


def diff(x, /, *, axis=-1, n=1, prepend=None, append=None):
    """The n-th forward difference along axis (for bool arrays, x[i+1] != x[i] as NumPy)."""
    x = asarray(x)
    if not isinstance(n, int) or n < 0:
        raise ValueError(f"diff: n must be a non-negative int, got {n!r}")
    if x.ndim == 0:
        raise ValueError("diff needs an array of at least one dimension")
    axis = axis + x.ndim if axis < 0 else axis
    if not 0 <= axis < x.ndim:
        raise ValueError(f"diff: axis {axis} is out of range for {x.ndim} dimensions")
    parts = []
    for extra in (prepend, x, append):
        if extra is None:
            continue
        extra = asarray(extra)
        if extra.ndim == 0:  # a scalar becomes one slice along the axis
            shape = list(x.shape)
            shape[axis] = 1
            extra = broadcast_to(extra, tuple(shape))
        parts.append(extra)
    if len(parts) > 1:
        x = concat(parts, axis=axis)
    for _ in range(n):
        later = x[_axis_slice(x.ndim, axis, 1, None)]
        earlier = x[_axis_slice(x.ndim, axis, 0, -1)]
        x = (later != earlier) if x.dtype == _dtypes.bool else later - earlier
    return x


def _axis_slice(ndim, axis, start, stop):
    key = [slice(None)] * ndim
    key[axis] = slice(start, stop)
    return tuple(key)
