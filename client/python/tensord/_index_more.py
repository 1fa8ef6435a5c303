"""Issue 4's remaining indexing functions and the ones whose output shape depends on the data
(docs/ops.md, docs/design-notes.md). An array made by nonzero, unique, masked_select or boolean
indexing has None in its shape until it is synced (the Array API allows this); later
operations may use it before that, and the daemon computes the size when it runs."""
from collections import namedtuple

import numpy as np

from . import _tensord
from ._array import Array, _operand_array
from ._location import caller

__all__ = ["searchsorted", "bucketize", "scatter_reduce", "index_put", "unfold", "nonzero",
           "argwhere", "flatnonzero", "masked_select", "unique_all", "unique_values",
           "unique_counts", "unique_inverse"]

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


def is_bool_mask(k):
    """Whether an index is a boolean mask (a bool Array or a NumPy bool array, not a Python
    bool)."""
    if isinstance(k, Array):
        return k.dtype.name == "bool"
    if isinstance(k, np.ndarray):
        return k.dtype == np.bool_
    if isinstance(k, list) and k and all(isinstance(v, (bool, np.bool_)) for v in k):
        return True
    return False


def mask_key(x, key):
    """The mask of `key` when it is one boolean mask (optionally followed by `...` or full
    slices), else None."""
    if not isinstance(key, tuple):
        key = (key,)
    if not key or not is_bool_mask(key[0]):
        return None
    if any(not (k is Ellipsis or k == slice(None)) for k in key[1:]):
        raise NotImplementedError("tensord: a boolean mask together with other indices is not "
                                  "supported yet; index with the mask alone, then the rest")
    return key[0]


def _as_mask(mask):
    from ._creation import asarray
    if not isinstance(mask, Array):
        mask = asarray(np.asarray(mask, dtype=np.bool_))
    return mask


def boolean_index(x, mask, loc):
    """x[mask]: (n,) + x.shape[mask.ndim:], n known once it runs."""
    mask = _as_mask(mask)
    if mask.ndim > x.ndim or tuple(x.shape[:mask.ndim]) != tuple(mask.shape):
        raise IndexError(f"boolean index of shape {tuple(mask.shape)} does not match the "
                         f"leading dimensions of the array's shape {tuple(x.shape)}")
    return Array(_tensord.boolean_index(x._t, mask._t, loc))


def boolean_assign(x, mask, value, loc):
    """x[mask] = value as a new tensor: a scalar or 0-d value is where(mask, value, x); an
    array of values is index_put (one value per selected row, or broadcast)."""
    from ._creation import asarray
    mask = _as_mask(mask)
    if mask.ndim > x.ndim or tuple(x.shape[:mask.ndim]) != tuple(mask.shape):
        raise IndexError(f"boolean index of shape {tuple(mask.shape)} does not match the "
                         f"leading dimensions of the array's shape {tuple(x.shape)}")
    if not isinstance(value, Array):
        if x.dtype.name == "bfloat16":
            value = asarray(np.asarray(value, np.float32))
        else:
            value = asarray(np.asarray(value, x.dtype.numpy_dtype))
    v = value._t
    if v.dtype != x._t.dtype:
        v = _tensord.astype(v, x._t.dtype, loc)
    if len(value.shape) == 0:
        m = mask._t
        if mask.ndim < x.ndim:
            m = _tensord.reshape(m, list(mask.shape) + [1] * (x.ndim - mask.ndim), loc)
        return _tensord.where(m, v, x._t, loc)
    return _tensord.index_put(x._t, [mask._t], v, False, loc)


def integer_assign(x, key, value, loc):
    """x[i0, i1, ...] = value with integer index arrays only (index_put; the last write wins
    where indices repeat)."""
    from ._creation import asarray
    idx = []
    for k in key:
        if isinstance(k, Array):
            idx.append(k._t)
        else:
            a = np.asarray(k)
            if a.dtype.kind not in "iu":
                raise IndexError(f"tensord: index arrays must be integers, not {a.dtype}")
            idx.append(asarray(a.astype(np.int64))._t)
    if not isinstance(value, Array):
        if x.dtype.name == "bfloat16":
            value = asarray(np.asarray(value, np.float32))
        else:
            value = asarray(np.asarray(value, x.dtype.numpy_dtype))
    v = value._t
    if v.dtype != x._t.dtype:
        v = _tensord.astype(v, x._t.dtype, loc)
    try:
        return _tensord.index_put(x._t, idx, v, False, loc)
    except ValueError as e:
        raise IndexError(str(e)) from None
