"""Item assignment by rebinding: `x[key] = v` records where(mask, v placed, x) and points the
handle `x` at the result. Arrays are values in the recorded graph, so other handles (including
slices taken from `x` before) keep their values; NumPy's views would see the change.
Supported keys: integers, slices and `...` (step-1 slices: where over a padded value; other
steps: index_put over the open grid of the selected positions); one boolean mask (x[mask] = v:
where or index_put); integer index arrays alone (x[idx] = v, x[rows, cols] = v: index_put, the
last write wins where indices repeat); other keys (arrays mixed with slices) raise
NotImplementedError."""
import builtins

import numpy as np

from . import _tensord


def assign(x, key, value, loc):
    """The tensor `x` with `value` written at `key` (basic, step-1 indexing)."""
    from ._array import Array
    from ._creation import asarray

    from . import _session
    from ._index_more import boolean_assign, integer_assign, mask_key
    from ._indexing import is_advanced

    if None in x.shape:  # a data-dependent size: learn it first
        _session.session().sync([x._t], loc)

    mask = mask_key(x, key)
    if mask is not None:
        return boolean_assign(x, mask, value, loc)
    if not isinstance(key, tuple):
        key = (key,)
    if key and builtins.all(is_advanced(k) for k in key):
        return integer_assign(x, key, value, loc)
    for k in key:
        if not (k is Ellipsis or isinstance(k, slice) or
                (isinstance(k, (int, np.integer)) and not isinstance(k, builtins.bool))):
            raise NotImplementedError(
                f"tensord: item assignment takes integers, step-1 slices and '...', not {k!r}")
    if builtins.sum(k is Ellipsis for k in key) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    used = builtins.sum(1 for k in key if k is not Ellipsis)
    if used > x.ndim:
        raise IndexError(f"too many indices: the array is {x.ndim}-D, {used} were indexed")
    if builtins.any(k is Ellipsis for k in key):
        i = next(i for i, k in enumerate(key) if k is Ellipsis)
        key = key[:i] + (slice(None),) * (x.ndim - used) + key[i + 1:]
    key = key + (slice(None),) * (x.ndim - len(key))

    if builtins.any(isinstance(k, slice) and k.indices(n)[2] != 1 for k, n in zip(key, x.shape)):
        return _stepped_assign(x, key, value, loc, integer_assign)

    starts, stops, region = [], [], []  # region: the value's shape (integer axes dropped)
    for axis, (k, n) in enumerate(zip(key, x.shape)):
        if isinstance(k, slice):
            start, stop, step = k.indices(n)
            stop = builtins.max(start, stop)
            region.append(stop - start)
        else:
            i = int(k)
            if not -n <= i < n:
                raise IndexError(f"index {i} is out of bounds for axis {axis} with size {n}")
            start = i % n
            stop = start + 1
        starts.append(start)
        stops.append(stop)

    v = value if isinstance(value, Array) else asarray(np.asarray(value, x.dtype.numpy_dtype)
                                                      if x.dtype.name != "bfloat16" else value)
    v = v._t
    if v.dtype != x._t.dtype:
        v = _tensord.astype(v, x._t.dtype, loc)
    if builtins.any(stop == start for start, stop in zip(starts, stops)):
        _tensord.expand(v, region, loc)  # still a shape error if the value does not fit
        return x._t
    v = _tensord.expand(v, region, loc)  # the value broadcasts to x[key]'s shape
    v = _tensord.reshape(v, [stop - start for start, stop in zip(starts, stops)], loc)
    pads = []
    for start, stop, n in zip(starts, stops, x.shape):
        pads += [start, n - stop]
    placed = _tensord.pad(v, pads, 0, loc)
    mask = None
    for axis, (start, stop, n) in enumerate(zip(starts, stops, x.shape)):
        if start == 0 and stop == n:
            continue
        m = np.zeros(n, np.bool_)
        m[start:stop] = True
        shape = [1] * x.ndim
        shape[axis] = n
        t = _tensord.reshape(asarray(m)._t, shape, loc)
        mask = t if mask is None else _tensord.logical_and(mask, t, loc)
    if mask is None:  # the whole array
        return placed
    return _tensord.where(mask, placed, x._t, loc)


def _stepped_assign(x, key, value, loc, integer_assign):
    """x[key] = value for a full basic key with a stepped slice: each slice becomes the index
    array of its positions, shaped to broadcast as an open grid (np.ix_) over the slice axes,
    each integer a 0-d index, so the grid has the shape of x[key]."""
    slices = [k for k in key if isinstance(k, slice)]
    grid = []
    ordinal = 0
    for axis, (k, n) in enumerate(zip(key, x.shape)):
        if isinstance(k, slice):
            positions = np.arange(*k.indices(n), dtype=np.int64)
            shape = [1] * len(slices)
            shape[ordinal] = positions.size
            grid.append(positions.reshape(shape))
            ordinal += 1
        else:
            i = int(k)
            if not -n <= i < n:
                raise IndexError(f"index {i} is out of bounds for axis {axis} with size {n}")
            grid.append(np.asarray(i % n, dtype=np.int64))
    if builtins.any(g.size == 0 for g in grid):
        return x._t  # nothing selected
    return integer_assign(x, tuple(grid), value, loc)
