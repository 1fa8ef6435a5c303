"""Integer-array indexing (x[[0, 2]], x[idx], x[rows, cols], mixed with slices), recorded as
one index_select over the indexed axes merged into one, as NumPy defines the result:
the index arrays broadcast together; their dims replace the indexed axes where those are
adjacent, else they come first. One boolean mask (x[mask], mask over x's leading axes) is
boolean_index: its first dimension is known once it runs (None in the shape until then)."""
import builtins

import numpy as np

from . import _tensord

_NOT_BOOL_MASKS = ("tensord: a boolean mask is supported alone (x[mask], x[mask, ...]), not "
                   "mixed with other indices or as a Python bool")


def is_advanced(k):
    """Whether `k` is an index array (or a list of them) rather than a basic index."""
    from ._array import Array
    return isinstance(k, (Array, np.ndarray, list, tuple))


def _host_index(k):
    a = np.asarray(k)
    if a.dtype == np.bool_:
        raise NotImplementedError(_NOT_BOOL_MASKS)
    if a.size == 0 and a.dtype.kind == "f":  # [] is an empty integer index, as in NumPy
        a = a.astype(np.int64)
    if a.dtype.kind not in "iu":
        raise IndexError(f"tensord: index arrays must be integers, not {a.dtype}")
    return a.astype(np.int64)


def advanced(x, key, loc):
    from ._array import Array
    from ._creation import asarray
    from ._index_more import boolean_index, mask_key

    mask = mask_key(x, key)
    if mask is not None:
        return boolean_index(x, mask, loc)
    if builtins.any(k is None for k in key):
        raise NotImplementedError("tensord: None (newaxis) together with integer-array indexing "
                                  "is not supported yet; index first, then expand_dims")
    if builtins.sum(k is Ellipsis for k in key) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    used = builtins.sum(1 for k in key if k is not Ellipsis)
    if used > x.ndim:
        raise IndexError(f"too many indices: the array is {x.ndim}-D, {used} were indexed")
    if builtins.any(k is Ellipsis for k in key):  # (`in` would compare arrays elementwise)
        i = next(i for i, k in enumerate(key) if k is Ellipsis)
        key = key[:i] + (slice(None),) * (x.ndim - used) + key[i + 1:]
    key = tuple(key) + (slice(None),) * (x.ndim - len(key))

    # Integers count as 0-d index arrays once any index array is present (NumPy's rule).
    axes, indices, device_index = [], [], None
    for axis, k in enumerate(key):
        if isinstance(k, slice):
            continue
        axes.append(axis)
        if isinstance(k, Array):
            if k.dtype.name == "bool":
                raise NotImplementedError(_NOT_BOOL_MASKS)
            if k.dtype.kind not in ("signed integer", "unsigned integer"):
                raise IndexError(f"tensord: index arrays must be integers, not {k.dtype.name}")
            device_index = k
            indices.append(None)
        elif isinstance(k, builtins.bool):
            raise NotImplementedError(_NOT_BOOL_MASKS)
        elif isinstance(k, (int, np.integer)) or is_advanced(k):
            indices.append(_host_index(k))
        else:
            raise IndexError(f"tensord: unsupported index {k!r}")
    shape = x.shape
    if device_index is not None and len(axes) > 1:
        raise NotImplementedError("tensord: a tensord index array together with other integer "
                                  "indices is not supported yet; use NumPy or list indices")

    # Basic slices first (index arrays keep their axes whole for now).
    t = x._t
    for axis, k in enumerate(key):
        if isinstance(k, slice) and k != slice(None):
            step = 1 if k.step is None else int(k.step)
            if step == 0:
                raise ValueError("slice step cannot be zero")
            start = None if k.start is None else int(k.start)
            stop = None if k.stop is None else int(k.stop)
            t = _tensord.slice(t, axis, start, stop, step, loc)
    shape = list(t.shape)

    # The linear index over the indexed axes, row-major.
    if device_index is not None:
        flat = device_index._t
        batch = device_index.shape
        if len(batch) != 1:
            flat = _tensord.reshape(flat, [device_index.size], loc)
    else:
        try:
            arrays = np.broadcast_arrays(*indices)
        except ValueError:
            raise IndexError("shape mismatch: indexing arrays could not be broadcast together "
                             "with shapes " + " ".join(str(a.shape) for a in indices)) from None
        batch = arrays[0].shape if arrays else ()
        linear = np.zeros(batch, np.int64)
        for axis, a in zip(axes, arrays):
            n = shape[axis]
            if a.size and (a.min() < -n or a.max() >= n):
                bad = a[(a < -n) | (a >= n)].flat[0]
                raise IndexError(f"index {bad} is out of bounds for axis {axis} with size {n}")
            linear = linear * n + np.where(a < 0, a + n, a)
        flat = asarray(linear.reshape(-1))._t

    # Indexed axes together at `at`: where they are if adjacent, else first (NumPy's rule).
    adjacent = axes == list(range(axes[0], axes[0] + len(axes)))
    at = axes[0] if adjacent else 0
    if not adjacent:
        rest = [a for a in range(len(shape)) if a not in axes]
        t = _tensord.permute(t, axes + rest, loc)
        shape = [shape[a] for a in axes + rest]
        axes = list(range(len(axes)))
    merged = 1
    for a in axes:
        merged *= shape[a]
    outer, inner = shape[:at], shape[at + len(axes):]
    if len(axes) > 1:
        t = _tensord.reshape(t, outer + [merged] + inner, loc)
    t = _tensord.index_select(t, at, flat, loc)
    return Array(_tensord.reshape(t, outer + list(batch) + inner, loc))
