"""Issue 4's shape and indexing ops (docs/ops.md). split, chunk and meshgrid return several
arrays, each recorded as its own slice or expand (the engine has single-output ops)."""
import numpy as np

from . import _dtypes, _tensord
from ._array import Array, _complex_scalar, _operand_array
from ._complex import complex as _complex, imag, real
from ._functions import where
from ._location import caller

__all__ = ["pad", "tril", "triu", "tile", "repeat", "repeat_interleave", "narrow", "take_along_dim",
           "take_along_axis", "masked_fill", "one_hot", "rot90", "diagonal", "diag_embed",
           "diag", "split", "chunk", "meshgrid", "scatter", "scatter_add", "index_add"]


def _t(x):
    return _operand_array(x)._t


def pad(x, pad_width, mode="constant", constant_values=0):
    """NumPy's pad in its constant mode: pad_width an int, a (before, after) pair or a pair per
    axis; constant_values one scalar (a complex one for complex arrays). Other modes and
    per-axis values raise NotImplementedError, so np.pad runs them in NumPy."""
    x = _operand_array(x)
    if mode != "constant":
        raise NotImplementedError(f"tensord: pad mode {mode!r} is not available (constant only)")
    try:
        widths = np.broadcast_to(np.asarray(pad_width, dtype=np.int64), (x.ndim, 2))
    except ValueError:
        raise ValueError(f"pad: pad_width {pad_width!r} does not fit {x.ndim} axes") from None
    if (widths < 0).any():
        raise ValueError(f"pad: pad_width {pad_width!r} has a negative width")
    value = constant_values.item() if isinstance(constant_values, np.generic) else constant_values
    if not isinstance(value, (bool, int, float, complex)):
        raise NotImplementedError("tensord: pad takes one scalar constant_values, not one per axis")
    pads = [int(w) for pair in widths for w in pair]
    if isinstance(value, complex):  # the wire's scalars are real: pad each part
        if not _dtypes.is_complex(x.dtype):
            raise TypeError(f"pad: a complex constant_values needs a complex array, not {x.dtype}")
        loc = caller()
        return _complex(Array(_tensord.pad(real(x)._t, pads, value.real, loc)),
                        Array(_tensord.pad(imag(x)._t, pads, value.imag, loc)))
    return Array(_tensord.pad(x._t, pads, value, caller()))


def tril(x, /, *, k=0):
    return Array(_tensord.tril(_t(x), int(k), caller()))


def triu(x, /, *, k=0):
    return Array(_tensord.triu(_t(x), int(k), caller()))


def tile(x, repetitions, /):
    return Array(_tensord.tile(_t(x), [int(r) for r in repetitions], caller()))


def repeat(x, repeats, /, *, axis=None):
    """The Array API's repeat (NumPy's): each element `repeats` times; with an array of counts
    (one per element along axis) the output size depends on the data."""
    if not isinstance(repeats, int):
        return Array(_tensord.repeat_interleave_tensor(_t(x), _t(repeats), axis, caller()))
    return Array(_tensord.repeat_interleave(_t(x), repeats, axis, caller()))


def repeat_interleave(x, repeats, /, axis=None):
    return repeat(x, repeats, axis=axis)


def narrow(x, axis, start, length, /):
    return Array(_tensord.narrow(_t(x), int(axis), int(start), int(length), caller()))


def take_along_dim(x, indices, /, axis=None):
    return Array(_tensord.take_along_dim(_t(x), _t(indices), axis, caller()))


def take_along_axis(x, indices, /, *, axis=-1):
    return take_along_dim(x, indices, axis)


def masked_fill(x, mask, value, /):
    if isinstance(value, complex):  # the wire's scalars are real: a 0-d array of x's precision
        x = _operand_array(x)
        if not _dtypes.is_complex(x.dtype):
            raise TypeError(f"masked_fill: a complex value needs a complex array, not {x.dtype}")
        return where(mask, _complex_scalar(value, x), x)
    return Array(_tensord.masked_fill(_t(x), _t(mask), value, caller()))


def one_hot(x, num_classes=-1, /):
    """int64 (..., num_classes); num_classes=-1 means max(x) + 1, learned by a sync (as in
    torch.nn.functional.one_hot)."""
    return Array(_tensord.one_hot(_t(x), int(num_classes), caller()))


def rot90(x, /, k=1, axes=(0, 1)):
    return Array(_tensord.rot90(_t(x), int(k), [int(a) for a in axes], caller()))


def diagonal(x, /, *, offset=0, axis1=0, axis2=1):
    return Array(_tensord.diagonal(_t(x), int(offset), int(axis1), int(axis2), caller()))


def diag_embed(x, /, offset=0):
    return Array(_tensord.diag_embed(_t(x), int(offset), caller()))


def diag(x, /, k=0):
    return Array(_tensord.diag(_t(x), int(k), caller()))


def split(x, split_size_or_sections, /, axis=0):
    """torch.split: an int size per part (the last may be smaller) or a list of sizes."""
    s = split_size_or_sections
    sizes = [int(v) for v in s] if not isinstance(s, int) else int(s)
    return [Array(t) for t in _tensord.split(_t(x), sizes, int(axis), caller())]


def chunk(x, chunks, /, axis=0):
    return [Array(t) for t in _tensord.chunk(_t(x), int(chunks), int(axis), caller())]


def meshgrid(*arrays, indexing="xy"):
    if indexing not in ("xy", "ij"):
        raise ValueError(f"indexing must be 'xy' or 'ij', got {indexing!r}")
    ts = [_t(a) for a in arrays]
    return [Array(t) for t in _tensord.meshgrid(ts, indexing == "xy", caller())]


def scatter(x, axis, index, src, /):
    if isinstance(src, (bool, int, float)):  # torch's scatter(dim, index, value)
        return Array(_tensord.scatter_value(_t(x), int(axis), _t(index), src, caller()))
    return Array(_tensord.scatter(_t(x), int(axis), _t(index), _t(src), caller()))


def scatter_add(x, axis, index, src, /):
    return Array(_tensord.scatter_add(_t(x), int(axis), _t(index), _t(src), caller()))


def index_add(x, axis, index, src, /, *, alpha=1.0):
    return Array(_tensord.index_add(_t(x), int(axis), _t(index), _t(src), float(alpha),
                                    caller()))
