"""Issue 4's remaining indexing functions and the ones whose output shape depends on the data
(docs/ops.md, docs/design-notes.md). An array made by nonzero, unique, masked_select or boolean
indexing has None in its shape until it is synced (the Array API allows this); later
operations may use it before that, and the daemon computes the size when it runs."""
from collections import namedtuple


import numpy as np

from . import _dtypes, _tensord
from ._array import Array, _operand_array
from ._location import caller

__all__ = ["searchsorted", "bucketize", "scatter_reduce", "index_put", "unfold", "nonzero",
           "argwhere", "flatnonzero", "masked_select", "unique_all", "unique_values",
           "unique_counts", "unique_inverse", "bincount"]

UniqueAllResult = namedtuple("UniqueAllResult", ["values", "indices", "inverse_indices", "counts"])
UniqueCountsResult = namedtuple("UniqueCountsResult", ["values", "counts"])
UniqueInverseResult = namedtuple("UniqueInverseResult", ["values", "inverse_indices"])

_REDUCE = {"sum": 0, "prod": 1, "mean": 2, "amax": 3, "amin": 4}


def _t(x):
    return _operand_array(x)._t


def searchsorted(x1, x2, /, *, side="left", sorter=None):
    """Indices where x2's values would be inserted into the sorted last axis of x1 (1-D, or
    with leading dims matching x2's): side "left" before equal elements, "right" after."""
    if side not in ("left", "right"):
        raise ValueError(f"side must be 'left' or 'right', got {side!r}")
    s = None if sorter is None else _t(sorter)
    return Array(_tensord.searchsorted(_t(x1), _t(x2), s, side == "right", caller()))


def bucketize(x, boundaries, /, *, right=False):
    """torch.bucketize: searchsorted(boundaries, x, side='right' if right else 'left')."""
    return Array(_tensord.bucketize(_t(x), _t(boundaries), bool(right), caller()))


def scatter_reduce(x, axis, index, src, reduce, /, *, include_self=True):
    """torch.scatter_reduce: src combined into x at index along axis; reduce is "sum", "prod",
    "mean" (integers round toward -inf), "amax" or "amin"."""
    if reduce not in _REDUCE:
        raise ValueError(f"reduce must be one of {sorted(_REDUCE)}, got {reduce!r}")
    return Array(_tensord.scatter_reduce(_t(x), int(axis), _t(index), _t(src), _REDUCE[reduce],
                                         bool(include_self), caller()))


def index_put(x, indices, values, /, *, accumulate=False):
    """torch.index_put: x with values written (accumulate: added) at x[indices]; indices are
    integer arrays (broadcast together, indexing the leading axes) or one bool mask."""
    ts = [_t(i) for i in indices]
    return Array(_tensord.index_put(_t(x), ts, _t(values), bool(accumulate), caller()))


def unfold(x, axis, size, step, /):
    """torch.Tensor.unfold: windows of `size` every `step` along axis, as a new last axis."""
    return Array(_tensord.unfold(_t(x), int(axis), int(size), int(step), caller()))


def nonzero(x, /):
    """The Array API's nonzero: a tuple of 1-D index arrays, one per axis (row-major order)."""
    x = _operand_array(x)
    if x.ndim == 0:
        raise ValueError("nonzero of a 0-d array is not allowed (Array API); use argwhere")
    return tuple(Array(t) for t in _tensord.where_nonzero(x._t, caller()))


def argwhere(x, /):
    """torch.nonzero / np.argwhere: int64 (n, ndim) indices of the non-zero elements."""
    return Array(_tensord.nonzero(_t(x), caller()))


def flatnonzero(x, /):
    return Array(_tensord.flatnonzero(_t(x), caller()))


def masked_select(x, mask, /):
    """torch.masked_select: the elements of x where mask (broadcast with x) is true, 1-D."""
    return Array(_tensord.masked_select(_t(x), _t(mask), caller()))


def unique_all(x, /):
    """The Array API's unique_all (2023.12), from one node (one sort in the daemon): values, the
    sorted distinct values of x flattened (NaNs last, each NaN distinct; -0.0 and 0.0 one
    value); indices, the flat index of each value's first occurrence; inverse_indices, x's
    shape, each element's position in values; counts. The three 1-D results have a
    data-dependent length (None in their shape until synced)."""
    return UniqueAllResult(*(Array(t) for t in _tensord.unique_all(_t(x), caller())))


def unique_values(x, /):
    """The sorted distinct values of x (flattened); NaNs sort last and each is distinct."""
    return unique_all(x).values


def unique_counts(x, /):
    r = unique_all(x)
    return UniqueCountsResult(r.values, r.counts)


def unique_inverse(x, /):
    r = unique_all(x)
    return UniqueInverseResult(r.values, r.inverse_indices)


def bincount(x, /, weights=None, minlength=0):
    """NumPy's bincount: how often each value of the non-negative 1-D integer array x occurs
    (weights: the sum of their weights, as float64), in max(x) + 1 bins, at least minlength.
    Like NumPy it reads x's smallest and largest value to size the result: a sync point (one
    round trip) unless x is empty. The counts themselves are one index_add on the daemon."""
    x = _operand_array(x)
    if x.ndim != 1:
        raise ValueError(f"bincount takes a 1-D array, got {x.ndim} dimensions")
    if not (_dtypes.is_integral(x.dtype) or x.dtype == _dtypes.bool):
        raise TypeError(f"bincount takes integers, not {x.dtype}")
    minlength = int(minlength)
    if minlength < 0:
        raise ValueError(f"minlength must not be negative, got {minlength}")
    from . import _functions
    index = _functions.astype(x, _dtypes.int64)
    n = x.shape[0]
    if n is None:  # a data-dependent length: sync to learn it
        _functions.sync(index)
        n = index.shape[0]
    bins = minlength
    if n > 0:
        lo, hi = (int(v) for v in np.asarray(_functions.stack([_functions.min(index),
                                                               _functions.max(index)])))
        if lo < 0:
            raise ValueError(f"bincount takes non-negative values, got {lo}")
        bins = max(bins, hi + 1)
    from . import _creation
    if weights is None:
        counts = _creation.zeros(bins, dtype=_dtypes.int64)
        return _index_add_into(counts, index, _creation.ones(n, dtype=_dtypes.int64))
    w = _operand_array(weights)
    if tuple(w.shape) != (n,):
        raise ValueError(f"weights must have x's shape ({n},), got {tuple(w.shape)}")
    return _index_add_into(_creation.zeros(bins, dtype=_dtypes.float64), index,
                           _functions.astype(w, _dtypes.float64))


def _index_add_into(into, index, values):
    return Array(_tensord.index_add(_t(into), 0, _t(index), _t(values), 1.0, caller()))
