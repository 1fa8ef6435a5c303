"""x[key] = v for keys with index arrays, masks, booleans, None or stepped slices, with
NumPy's semantics: v broadcasts to the shape x[key] has, and where indices repeat the last
write (in row-major order of the index arrays' broadcast shape) wins.

Recorded as one index_put: x is permuted so that the indexed axes come first (each group's
axes merged into one), then the sliced axes, then the whole ones; the groups' flat indices
and each sliced axis's positions (an open grid after the groups' broadcast dims, as np.ix_)
index those leading axes, and v, laid out as x[key] is, is permuted the same way.

One mask beside integers and slices only goes through the mask itself instead: the slab
x[ints and slices, mask axes whole] gets where(mask, v, slab) for a scalar v, else
index_put(slab, [mask], v), and the slab is written back. So a td.Array mask keeps its count
data-dependent (index_put checks it against v when the graph runs); other mixes with such a
mask learn its count first (a sync point)."""
import math

import numpy as np

from . import _tensord
from ._assign import assign_region, fit_value
from ._index_key import check_host_index, parse
from ._indexing import checked_device_index


def assign_advanced(x, key, v, loc):
    """The tensor of Array x with the tensor v (of x's dtype) written at `key`."""
    if len(key) == 1 and _mask_rank(key[0]) == x.ndim and len(v.shape) > 1:
        # NumPy's own rule (a TypeError there) for a lone mask over every axis.
        raise TypeError("NumPy boolean array indexing assignment requires a 0 or 1-dimensional "
                        f"input, input has {len(v.shape)} dimensions")
    k = parse(x, key, loc)
    masks = [g for g in k.groups if g.mask is not None]
    if len(masks) == 1 and all(not g.on_device and g.shape == ()
                               for g in k.groups if g is not masks[0]):
        out = _through_mask(k, masks[0], v, loc)
    else:
        k.settle_dynamic(loc, keep_one=False)
        out = _index_put(k, v, loc)
    if k.new_axes:
        out = _tensord.squeeze(out, k.new_axes, loc)
    return out


def _mask_rank(k):
    """The rank of a boolean index (a mask, a bool list, a Python bool), else None."""
    from ._array import Array
    if isinstance(k, (bool, np.bool_)):
        return 0
    if isinstance(k, Array):
        return k.ndim if k.dtype.name == "bool" else None
    if isinstance(k, (np.ndarray, list, tuple)):
        a = np.asarray(k)
        return a.ndim if a.dtype == np.bool_ else None
    return None


def _layout(k):
    """NumPy's layout of x[key]: the axes of t that slices keep (in order), and the position
    of the groups' broadcast dims among them: in place if the groups are adjacent, else
    first."""
    group_axes = [a for g in k.groups for a in g.axes]
    kept = [a for a in range(len(k.slices)) if a not in group_axes]
    if not group_axes:  # (a key of None, integers and slices)
        return kept, 0
    at = sum(1 for a in kept if a < group_axes[0]) if k.adjacent() else 0
    return kept, at


def _positions(s, n):
    return np.arange(*s.indices(n), dtype=np.int64)


def _permute(t, perm, loc):
    return t if perm == list(range(len(perm))) else _tensord.permute(t, perm, loc)


def _index_put(k, v, loc):
    from ._creation import asarray

    batch = list(k.broadcast_shape())
    t = k.t
    shape = list(t.shape)
    kept, at = _layout(k)
    lengths = {a: len(range(*k.slices[a].indices(shape[a]))) for a in kept}
    result = [lengths[a] for a in kept[:at]] + batch + [lengths[a] for a in kept[at:]]
    v = fit_value(v, result, loc)
    if math.prod(result) == 0:
        return t  # nothing selected (the value was still checked, as NumPy does)

    sliced = [a for a in kept if k.slices[a].indices(shape[a]) != (0, shape[a], 1)]
    whole = [a for a in kept if a not in sliced]
    if not k.groups and not sliced:  # the whole array: v in its place
        return v
    grid = [1] * len(sliced)  # each index gets these trailing dims: an open grid after batch
    indices = []
    for i, g in enumerate(k.groups):
        n = k.group_size(g)
        if not g.on_device:
            a = check_host_index(g, n)
            indices.append(asarray(a.reshape(a.shape + tuple(grid)))._t)
            continue
        index = g.index
        if g.checked and i != g.axis:  # else index_put's own check names x's axis already
            index = checked_device_index(index, n, g.axis, loc)
        if grid:
            index = _tensord.reshape(index, list(g.shape) + grid, loc)
        indices.append(index)
    for j, a in enumerate(sliced):
        positions = _positions(k.slices[a], shape[a])
        indices.append(asarray(positions.reshape((-1,) + (1,) * (len(sliced) - 1 - j)))._t)

    order = [a for g in k.groups for a in g.axes] + sliced + whole
    moved = _permute(t, order, loc)
    merged = [k.group_size(g) for g in k.groups] + [shape[a] for a in sliced + whole]
    multi_axis = any(len(g.axes) > 1 for g in k.groups)
    if multi_axis:
        moved = _tensord.reshape(moved, merged, loc)
    # v is laid out as x[key]: batch dims at `at`, then the kept axes around them.
    where_in_v = {a: (i if i < at else i + len(batch)) for i, a in enumerate(kept)}
    v = _permute(v, list(range(at, at + len(batch))) + [where_in_v[a] for a in sliced + whole],
                 loc)
    out = _tensord.index_put(moved, indices, v, False, loc)
    if multi_axis:
        out = _tensord.reshape(out, [shape[a] for a in order], loc)
    return _permute(out, [order.index(a) for a in range(len(order))], loc)


def _through_mask(k, g, v, loc):
    """x[key] = v with one mask `g` beside integers and slices (see the module's docstring);
    a td.Array mask's count stays unknown until the graph runs."""
    from ._array import Array, _index
    from ._creation import asarray

    t = k.t
    shape = list(t.shape)
    ints = {h.axes[0]: int(check_host_index(h, shape[h.axes[0]])) for h in k.groups if h is not g}
    slab_key = tuple(ints[a] if a in ints else slice(None) if a in g.axes else k.slices[a]
                     for a in range(len(shape)))
    whole = all(isinstance(s, slice) and s.indices(n) == (0, n, 1)
                for s, n in zip(slab_key, shape))
    slab = t if whole else _index(Array(t), slab_key, loc)._t
    slab_axes = [a for a in range(len(shape)) if a not in ints]
    mask_at = slab_axes.index(g.axes[0])  # the mask's axes in the slab, consecutive
    rank = len(g.axes)

    kept, at = _layout(k)
    lengths = [len(range(*k.slices[a].indices(shape[a]))) for a in kept]
    count = None if g.on_device else g.index.size  # None: known when the graph runs
    result = lengths[:at] + [count] + lengths[at:]
    scalar = len(v.shape) == 0
    if count is not None:
        if not scalar:
            v = fit_value(v, result, loc)  # (NumPy's check at the call)
        if math.prod(result) == 0:
            return t
    mask = g.mask if g.on_device else asarray(g.mask)._t
    if scalar:
        m = _tensord.reshape(mask, [1] * mask_at + list(mask.shape) +
                             [1] * (len(slab_axes) - mask_at - rank), loc)
        new_slab = _tensord.where(m, v, slab, loc)
    else:
        if count is None:
            v = _fit_with_count(v, result, at, loc)
        v = _permute(v, [at] + [i for i in range(len(result)) if i != at], loc)
        order = list(range(mask_at, mask_at + rank)) + [
            i for i in range(len(slab_axes)) if not mask_at <= i < mask_at + rank]
        new_slab = _tensord.index_put(_permute(slab, order, loc), [mask], v, False, loc)
        new_slab = _permute(new_slab, [order.index(i) for i in range(len(order))], loc)
    return new_slab if whole else assign_region(t, slab_key, new_slab, loc)


def _fit_with_count(v, result, at, loc):
    """v broadcast to x[key]'s shape `result`, whose dim `at` is the mask's unknown count:
    that dim of v stays as it is (1 broadcasts, any other size must be the count, which
    index_put checks when it runs)."""
    have = list(v.shape)
    if len(have) < len(result):
        have = [1] * (len(result) - len(have)) + have
        v = _tensord.reshape(v, have, loc)
    elif len(have) > len(result):
        extra = len(have) - len(result)
        if any(d != 1 for d in have[:extra]):
            raise ValueError(f"could not broadcast input array from shape {tuple(have)} into "
                             f"shape {tuple(result)}")
        have = have[extra:]
        v = _tensord.reshape(v, have, loc)
    target = list(result)
    target[at] = have[at]
    return fit_value(v, target, loc)
