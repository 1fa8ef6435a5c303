"""Item assignment by rebinding: `x[key] = v` records x with v written at key and points the
handle `x` at the result. Arrays are values in the recorded graph, so other handles (including
slices taken from `x` before) keep their values; NumPy's views would see the change.
Keys of integers, step-1 slices and `...` are a where over the value padded into place (here);
every other key (stepped slices, None, index arrays, masks, booleans, mixed with the rest as
NumPy allows) is _assign_advanced's index_put (or where through a device mask)."""
import builtins

import numpy as np

from . import _session, _tensord
from ._index_key import index_error, is_advanced


def assign(x, key, value, loc):
    """The tensor of `x` with `value` written at `key`, as NumPy's x[key] = value."""
    from ._assign_advanced import assign_advanced

    if None in x.shape:  # a data-dependent size: learn it first
        _session.session().sync([x._t], loc)
    if not isinstance(key, tuple):
        key = (key,)
    v = value_tensor(x, value, loc)
    for k in key:
        if not (k is None or k is Ellipsis or isinstance(k, (slice, int, np.integer)) or
                is_advanced(k)):
            raise index_error(f"tensord: unsupported index {k!r}: only integers, slices, "
                              "'...', None and integer or boolean arrays are valid indices")
    if builtins.any(k is None or is_advanced(k) for k in key):
        return assign_advanced(x, key, v, loc)
    if builtins.sum(k is Ellipsis for k in key) > 1:
        raise index_error("an index can only have a single ellipsis ('...')")
    used = builtins.sum(1 for k in key if k is not Ellipsis)
    if used > x.ndim:
        raise index_error(f"too many indices for array: array is {x.ndim}-dimensional, but "
                          f"{used} were indexed")
    at = key.index(Ellipsis) if Ellipsis in key else len(key)
    key = key[:at] + (slice(None),) * (x.ndim - used) + key[at + 1:]
    for k in key:
        if isinstance(k, slice) and k.step is not None and int(k.step) == 0:
            raise ValueError("slice step cannot be zero")
    if builtins.any(isinstance(k, slice) and k.indices(n)[2] != 1 for k, n in zip(key, x.shape)):
        return assign_advanced(x, key, v, loc)  # a stepped slice: index_put over its positions
    return _assign_region(x._t, key, v, loc)


def value_tensor(x, value, loc):
    """The value to write as a tensor of x's dtype (cast as NumPy casts on assignment); a
    data-dependent size is learned first."""
    from ._array import Array
    from ._creation import asarray
    if not isinstance(value, Array):
        host = np.float32 if x.dtype.name == "bfloat16" else x.dtype.numpy_dtype
        value = asarray(np.asarray(value, host))
    elif None in value.shape:
        _session.session().sync([value._t], loc)
    v = value._t
    if v.dtype != x._t.dtype:
        v = _tensord.astype(v, x._t.dtype, loc)
    return v


def fit_value(v, shape, loc):
    """The value broadcast to `shape` (x[key]'s shape), as NumPy does on assignment: leading
    size-1 dims beyond the target's rank are dropped; ValueError if it does not broadcast."""
    have = list(v.shape)
    if len(have) > len(shape):
        extra = have[:len(have) - len(shape)]
        if builtins.any(d != 1 for d in extra):
            raise ValueError(f"could not broadcast input array from shape {tuple(have)} into "
                             f"shape {tuple(shape)}")
        have = have[len(extra):]
        v = _tensord.reshape(v, have, loc)
    try:
        if tuple(np.broadcast_shapes(tuple(have), tuple(shape))) != tuple(shape):
            raise ValueError
    except ValueError:
        raise ValueError(f"could not broadcast input array from shape {tuple(v.shape)} into "
                         f"shape {tuple(shape)}") from None
    return v if have == list(shape) else _tensord.expand(v, list(shape), loc)


def _assign_region(t, key, v, loc):
    """t with v written at a full key of integers and step-1 slices: the value padded into
    place, chosen by a where over the region's mask."""
    from ._creation import asarray
    shape = list(t.shape)
    starts, stops, region = [], [], []  # region: the value's shape (integer axes dropped)
    for axis, (k, n) in enumerate(zip(key, shape)):
        if isinstance(k, slice):
            start, stop, _ = k.indices(n)
            stop = builtins.max(start, stop)
            region.append(stop - start)
        else:
            i = int(k)
            if not -n <= i < n:
                raise index_error(f"index {i} is out of bounds for axis {axis} with size {n}")
            start = i % n
            stop = start + 1
        starts.append(start)
        stops.append(stop)

    v = fit_value(v, region, loc)
    if builtins.any(stop == start for start, stop in zip(starts, stops)):
        return t  # nothing selected
    v = _tensord.reshape(v, [stop - start for start, stop in zip(starts, stops)], loc)
    pads = []
    for start, stop, n in zip(starts, stops, shape):
        pads += [start, n - stop]
    placed = _tensord.pad(v, pads, 0, loc)
    mask = None
    for axis, (start, stop, n) in enumerate(zip(starts, stops, shape)):
        if start == 0 and stop == n:
            continue
        m = np.zeros(n, np.bool_)
        m[start:stop] = True
        axis_shape = [1] * len(shape)
        axis_shape[axis] = n
        m = _tensord.reshape(asarray(m)._t, axis_shape, loc)
        mask = m if mask is None else _tensord.logical_and(mask, m, loc)
    if mask is None:  # the whole array
        return placed
    return _tensord.where(mask, placed, t, loc)


def assign_region(t, key, v, loc):
    """t (a tensor) with v (a tensor of its dtype) written at a full key of integers and slices
    of any step: for _assign_advanced, which writes a slab back through it."""
    from ._array import Array
    if builtins.any(isinstance(k, slice) and k.indices(n)[2] != 1 for k, n in zip(key, t.shape)):
        from ._assign_advanced import assign_advanced
        return assign_advanced(Array(t), key, v, loc)
    return _assign_region(t, key, v, loc)

