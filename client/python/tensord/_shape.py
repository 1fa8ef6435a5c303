"""Issue 4's shape and indexing ops (docs/ops.md). split, chunk and meshgrid return several
arrays, each recorded as its own slice or expand (the engine has single-output ops)."""
from . import _tensord
from ._array import Array, _operand_array
from ._location import caller

__all__ = ["tril", "triu", "tile", "repeat", "repeat_interleave", "narrow", "take_along_dim",
           "take_along_axis", "masked_fill", "one_hot", "rot90", "diagonal", "diag_embed",
           "diag", "split", "chunk", "meshgrid", "scatter", "scatter_add", "index_add"]


def _t(x):
    return _operand_array(x)._t


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
