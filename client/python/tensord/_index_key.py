"""A NumPy index key in one canonical form, shared by reading (x[key]) and assignment.

NumPy's rules, as applied here: `...` stands for as many full slices as the key leaves axes;
`None` inserts an axis of size 1 (done here by unsqueezing, so the new axis is an ordinary
full slice and still separates the indices on either side of it); once the key holds any
index array, integers count as 0-d index arrays; a boolean mask over k axes stands for the
k integer arrays of its nonzero(), which are adjacent, and a 0-d boolean (True, False, a 0-d
bool array) is a mask over a new axis of size 1. The index arrays broadcast together; their
dims replace the indexed axes where those are adjacent, else they come first.

Each index array (or mask) becomes one `Group`: consecutive axes of the unsqueezed tensor
and one flat row-major index over them (a mask's flatnonzero). A mask given as a td.Array
has a data-dependent count: its group's shape is (None,) until the mask runs."""
import builtins
import math
import operator
import sys

import numpy as np

from . import _dtypes, _session, _tensord
from ._location import _PACKAGE_DIR


def user_line():
    """file:line of the innermost frame outside the package: the line that indexed."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame = frame.f_back
    return "<unknown>" if frame is None else f"{frame.f_code.co_filename}:{frame.f_lineno}"


def index_error(message):
    """IndexError (NumPy's exception for bad indices) naming the user's line, as the
    errors found while recording do."""
    return IndexError(f"{message} (indexing at {user_line()})")


def is_advanced(k):
    """Whether `k` is an index array, a list of indices or a boolean, not a basic index (an
    object with __index__ other than an int is read here too, as the integer it stands for)."""
    from ._array import Array
    if isinstance(k, (Array, np.ndarray, list, tuple, builtins.bool, np.bool_)):
        return True
    return not isinstance(k, (int, np.integer)) and hasattr(type(k), "__index__")


class Group:
    """One index array (or mask) of the key, over the consecutive axes `axes` of the
    unsqueezed tensor. `index` is the flat row-major index over those axes: an int64 NumPy
    array or a tensor (a td.Array index or a device mask's flatnonzero). `checked` says whether
    its values need a bounds check (a user's index array; a mask's are in range). `axis` is
    the axis of the original array it starts at, for messages. `mask` is a mask's bool values
    over `axes` (a NumPy array or a tensor; for assignment through the mask), else None."""

    __slots__ = ("axes", "index", "checked", "axis", "mask")

    def __init__(self, axes, index, checked, axis, mask=None):
        self.axes, self.index, self.checked, self.axis, self.mask = axes, index, checked, axis, mask

    @property
    def on_device(self):
        return not isinstance(self.index, np.ndarray)

    @property
    def shape(self):
        return tuple(self.index.shape)

    @property
    def dynamic(self):
        return None in self.shape


class Key:
    """The key as per-axis entries of `t`, x's tensor with the key's new axes inserted
    (`new_axes`, to squeeze off after assignment): `slices[a]` is the slice on axis a, or
    None where a group indexes it. `groups` are in key order."""

    __slots__ = ("t", "new_axes", "slices", "groups")

    def __init__(self, t, new_axes, slices, groups):
        self.t, self.new_axes, self.slices, self.groups = t, new_axes, slices, groups

    def group_size(self, g):
        return math.prod(self.t.shape[a] for a in g.axes)

    def adjacent(self):
        """Whether the groups' axes are one run: then their broadcast dims stay in place."""
        axes = [a for g in self.groups for a in g.axes]
        return not axes or axes == list(range(axes[0], axes[0] + len(axes)))

    def broadcast_shape(self):
        """The index arrays' broadcast shape; (None,) for one data-dependent index (a device
        mask or a 1-D td.Array not synced yet) with 0-d others."""
        shapes = [g.shape for g in self.groups]
        if builtins.any(None in s for s in shapes):
            return (None,)  # see settle_dynamic: any other combination was synced
        try:
            return np.broadcast_shapes(*shapes)
        except ValueError:
            raise index_error("shape mismatch: indexing arrays could not be broadcast together "
                              "with shapes " + " ".join(str(s) for s in shapes)) from None

    def settle_dynamic(self, loc, keep_one=True):
        """Learns the data-dependent lengths of indices (a sync point) unless, with keep_one,
        there is one beside 0-d indices: that broadcast shape is (None,), which ops carry
        until the graph runs. Any other mix needs the length to broadcast."""
        dynamic = [g for g in self.groups if g.dynamic]
        if not dynamic:
            return
        others = [g for g in self.groups if not g.dynamic]
        if keep_one and len(dynamic) == 1 and builtins.all(g.shape == () for g in others):
            return
        _session.session().sync([g.index for g in dynamic], loc)


def _sync_dynamic_arrays(key, loc):
    """td.Array indices whose own shape is data-dependent: learn it (one sync point), except
    for 1-D integer ones, which index_select takes as they are (see Key.settle_dynamic)."""
    from ._array import Array
    pending = [k._t for k in key if isinstance(k, Array) and None in k.shape and
               (k.ndim != 1 or k.dtype.name == "bool")]
    if pending:
        _session.session().sync(pending, loc)


def _as_index_array(k):
    """A NumPy index array, list or tuple as a NumPy array of integers or booleans."""
    a = np.asarray(k)
    if a.size == 0 and a.dtype.kind == "f" and isinstance(k, (list, tuple)):
        a = a.astype(np.int64)  # [] is an empty integer index, as in NumPy (not float arrays)
    if a.dtype != np.bool_ and a.dtype.kind not in "iu":
        raise index_error(f"tensord: index arrays must be integers or booleans, not {a.dtype}")
    return a


_INT64_MAX = np.iinfo(np.int64).max


def _int64_index(a, axis, n):
    """Integer index values as int64: NumPy casts unsigned ones so (2**64 - 1 is -1); a Python
    integer beyond int64 is out of bounds for any axis."""
    if a.dtype == object and not -_INT64_MAX - 1 <= a[()] <= _INT64_MAX:
        raise index_error(f"index {a[()]} is out of bounds for axis {axis} with size {n}")
    return a.astype(np.int64)


def _dims_used(k):
    """How many axes of the array an index consumes."""
    from ._array import Array
    if k is None or k is Ellipsis:
        return 0
    if isinstance(k, (builtins.bool, np.bool_)):
        return 0
    if isinstance(k, Array) and k.dtype.name == "bool":
        return k.ndim
    if isinstance(k, np.ndarray) and k.dtype == np.bool_:
        return k.ndim
    return 1


def parse(x, key, loc):
    """The canonical form of `key` (a tuple) on the Array x, whose shape is known."""
    from ._array import Array

    _sync_dynamic_arrays(key, loc)
    key = tuple(_as_index_array(k) if isinstance(k, (list, tuple)) else k for k in key)
    if builtins.sum(k is Ellipsis for k in key) > 1:
        raise index_error("an index can only have a single ellipsis ('...')")
    used = builtins.sum(_dims_used(k) for k in key)
    if used > x.ndim:
        raise index_error(f"too many indices for array: array is {x.ndim}-dimensional, but "
                          f"{used} were indexed")
    # The missing axes: full slices where the ellipsis is, else at the end. (`in` would
    # compare arrays elementwise.)
    at = next((i for i, k in enumerate(key) if k is Ellipsis), len(key))
    key = key[:at] + (slice(None),) * (x.ndim - used) + key[at + 1:]

    t = x._t
    shape = list(t.shape)
    new_axes, slices, groups = [], [], []
    origin = 0  # the axis of x that the next index consumes
    for k in key:
        axis = len(slices)  # the axis of the unsqueezed tensor
        if k is None:
            new_axes.append(axis)
            slices.append(slice(None))
            continue
        if isinstance(k, slice):
            if k.step is not None and int(k.step) == 0:
                raise ValueError("slice step cannot be zero")
            slices.append(k)
            origin += 1
            continue
        if isinstance(k, Array):
            if k.dtype.name == "bool":
                groups.append(_device_mask(k, shape, axis, origin, new_axes, slices, loc))
                origin += k.ndim
                continue
            if not _dtypes.is_integral(k.dtype):
                raise index_error(f"tensord: index arrays must be integers or booleans, not "
                                  f"{k.dtype.name}")
            groups.append(Group([axis], k._t, True, origin))
        elif isinstance(k, (builtins.bool, np.bool_)):
            groups.append(_host_mask(np.asarray(k), shape, axis, origin, new_axes, slices))
            continue
        elif isinstance(k, np.ndarray):
            k = _as_index_array(k)
            if k.dtype == np.bool_:
                groups.append(_host_mask(k, shape, axis, origin, new_axes, slices))
                origin += k.ndim
                continue
            groups.append(Group([axis], _int64_index(k, origin, shape[origin]), True, origin))
        elif isinstance(k, (int, np.integer)) or hasattr(type(k), "__index__"):
            i = np.asarray(operator.index(k), dtype=object)
            groups.append(Group([axis], _int64_index(i, origin, shape[origin]), True, origin))
        else:
            raise index_error(f"tensord: unsupported index {k!r}: only integers, slices, "
                              "'...', None and integer or boolean arrays are valid indices")
        slices.append(None)
        origin += 1
    if new_axes:
        t = _tensord.unsqueeze(t, new_axes, loc)
    return Key(t, new_axes, slices, groups)


def _mask_axes(mask_shape, shape, axis, origin, new_axes, slices):
    """The axes a mask of `mask_shape` covers, starting at `axis` (a new one for a 0-d mask),
    after checking its shape against x's `shape` from `origin` on, as NumPy does."""
    if not mask_shape:  # a 0-d boolean: a mask over a new axis of size 1
        new_axes.append(axis)
        slices.append(None)
        return [axis]
    for d, n in enumerate(mask_shape):
        if shape[origin + d] != n:
            raise index_error(f"boolean index did not match indexed array along dimension "
                              f"{origin + d}; dimension is {shape[origin + d]} but "
                              f"corresponding boolean dimension is {n}")
    slices.extend([None] * len(mask_shape))
    return list(range(axis, axis + len(mask_shape)))


def _host_mask(mask, shape, axis, origin, new_axes, slices):
    axes = _mask_axes(mask.shape, shape, axis, origin, new_axes, slices)
    return Group(axes, np.flatnonzero(mask).astype(np.int64), False, origin,
                 mask=mask.reshape(-1) if mask.ndim == 0 else mask)


def _device_mask(mask, shape, axis, origin, new_axes, slices, loc):
    axes = _mask_axes(tuple(mask.shape), shape, axis, origin, new_axes, slices)
    m = mask._t if mask.ndim else _tensord.reshape(mask._t, [1], loc)
    return Group(axes, _tensord.flatnonzero(m, loc), False, origin, mask=m)


def check_host_index(g, n):
    """A host group's index with its bounds checked (IndexError at the user's line) and
    negative values wrapped."""
    a = g.index
    if g.checked and a.size and (a.min() < -n or a.max() >= n):
        bad = a[(a < -n) | (a >= n)].flat[0]
        raise index_error(f"index {bad} is out of bounds for axis {g.axis} with size {n}")
    return np.where(a < 0, a + n, a) if g.checked else a
