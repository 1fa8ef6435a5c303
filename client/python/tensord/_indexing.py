"""Advanced indexing (x[key] with index arrays, masks or booleans; see _index_key for how a
key is read), recorded as NumPy defines the result: the basic slices first, then one
index_select of the flat row-major index over the indexed axes, merged into one axis (moved
to the front first when they are not adjacent). The flat index is computed on the host when
every index is a host value (bounds found at the call: IndexError), else on the daemon
(bounds found when it runs: td.TensorError naming the op and the recording line)."""
import math

import numpy as np

from . import _dtypes, _session, _tensord
from ._index_key import check_host_index, is_advanced, parse

__all__ = ["advanced", "flat_index", "checked_device_index", "is_advanced"]


def advanced(x, key, loc):
    from ._array import Array

    k = parse(x, key, loc)
    k.settle_dynamic(loc)
    batch = k.broadcast_shape()
    t = k.t
    for axis, s in enumerate(k.slices):
        if s is not None and s != slice(None):
            start = None if s.start is None else int(s.start)
            stop = None if s.stop is None else int(s.stop)
            t = _tensord.slice(t, axis, start, stop, 1 if s.step is None else int(s.step), loc)
    shape = list(t.shape)
    axes = [a for g in k.groups for a in g.axes]
    # A lone td.Array index on an axis of x: index_select on x checks it and names the axis.
    direct = len(k.groups) == 1 and k.groups[0].on_device and k.groups[0].axes == [
        k.groups[0].axis]
    flat = flat_index(k, shape, batch, loc, check_device=not direct)

    adjacent = k.adjacent()
    at = axes[0] if adjacent else 0
    if not adjacent:
        rest = [a for a in range(len(shape)) if a not in axes]
        t = _tensord.permute(t, axes + rest, loc)
        shape = [shape[a] for a in axes + rest]
        axes = list(range(len(axes)))
    outer, inner = shape[:at], shape[at + len(axes):]
    if len(axes) != 1:
        t = _tensord.reshape(t, outer + [math.prod(shape[a] for a in axes)] + inner, loc)
    t = _tensord.index_select(t, at, flat, loc)
    target = outer + list(batch) + inner
    if None not in batch and list(t.shape) != target:
        t = _tensord.reshape(t, target, loc)
    return Array(t)


def flat_index(k, shape, batch, loc, check_device=True):
    """The 1-D flat row-major index over the groups' axes (of a tensor of `shape`), in the
    order of the broadcast shape `batch`, as a tensor: NumPy's multi-index, linearized."""
    from ._creation import asarray

    sizes = [math.prod(shape[a] for a in g.axes) for g in k.groups]
    if not any(g.on_device for g in k.groups):
        linear = np.zeros((), np.int64)
        for g, n in zip(k.groups, sizes):
            linear = linear * n + check_host_index(g, n)
        return asarray(np.broadcast_to(linear, batch).reshape(-1))._t

    linear = None  # a Python int while only 0-d host indices were seen, then a tensor
    for g, n in zip(k.groups, sizes):
        if not g.on_device:
            a = check_host_index(g, n)
            term = int(a) if a.ndim == 0 else asarray(a)._t
        elif g.checked and check_device:
            term = checked_device_index(g.index, n, g.axis, loc)
        elif g.index.dtype != _dtypes.int64._engine:
            term = _tensord.astype(g.index, _dtypes.int64._engine, loc)
        else:
            term = g.index
        if linear is None:
            linear = term
        elif isinstance(linear, int):
            if isinstance(term, int):
                linear = linear * n + term
            else:
                linear = term if linear * n == 0 else _tensord.add(linear * n, term, loc)
        else:
            linear = _tensord.add(_tensord.mul(linear, n, loc), term, loc)
    if tuple(linear.shape) != tuple(batch):  # 0-d indices beside a larger one
        linear = _tensord.expand(linear, list(batch), loc)
    if len(batch) != 1:
        linear = _tensord.reshape(linear, [math.prod(batch)], loc)
    return linear


def checked_device_index(index, n, axis, loc):
    """A td.Array index into an axis of size n, as int64 with negative values wrapped, read
    through index_select from arange(n) laid along `axis`: an out-of-range value fails that
    index_select when the graph runs, with NumPy's message for x's axis."""
    s = _session.session()
    positions = s.arange(0, n, 1, _dtypes.int64._engine, loc)
    if axis:
        positions = _tensord.reshape(positions, [1] * axis + [n], loc)
    shape = list(index.shape)  # (None,) for a data-dependent index: no reshape needed
    flat = index if len(shape) == 1 else _tensord.reshape(index, [math.prod(shape)], loc)
    out = _tensord.index_select(positions, axis, flat, loc)
    if len(shape) == 1:
        return _tensord.squeeze(out, list(range(axis)), loc) if axis else out
    return _tensord.reshape(out, shape, loc)
