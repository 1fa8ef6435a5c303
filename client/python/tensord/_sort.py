"""Sorting (issue 4, docs/ops.md): the Array API's sort and argsort, torch-style quantile,
nanquantile, median, nanmedian, topk, kthvalue, mode, cummax and cummin; the (values, indices)
results are named tuples like torch.return_types (`.values`, `.indices`)."""
from collections import namedtuple

from . import _tensord
from ._array import Array, _operand_array
from ._location import caller

__all__ = ["sort", "argsort", "quantile", "nanquantile", "median", "nanmedian", "topk",
           "kthvalue", "mode", "cummax", "cummin"]

# torch.return_types' shapes: one named tuple type per op.
_RESULT = {name: namedtuple(name, ["values", "indices"])
           for name in ("sort", "topk", "kthvalue", "median", "nanmedian", "mode", "cummax",
                        "cummin")}


def _pair(name, tensors):
    values, indices = tensors
    return _RESULT[name](Array(values), Array(indices))

_INTERPOLATION = {"linear": 0, "lower": 1, "higher": 2, "nearest": 3, "midpoint": 4}


def sort(x, /, *, axis=-1, descending=False, stable=True):
    """The values of x sorted along axis; NaN sorts last (first when descending)."""
    values, _ = _tensord.sort(_operand_array(x)._t, int(axis), bool(descending), bool(stable),
                              caller())
    return Array(values)


def argsort(x, /, *, axis=-1, descending=False, stable=True):
    """int64 indices that sort x along axis; equal elements keep their order (stable)."""
    return Array(_tensord.argsort(_operand_array(x)._t, int(axis), bool(descending),
                                  bool(stable), caller()))


def _quantile(x, q, dim, keepdim, interpolation, skip_nan):
    x = _operand_array(x)
    if interpolation not in _INTERPOLATION:
        raise ValueError(f"interpolation must be one of {sorted(_INTERPOLATION)}, "
                         f"got {interpolation!r}")
    if not isinstance(q, Array):
        # a number or a sequence: in x's dtype when x is floating (as torch requires)
        dtype = x.dtype if x.dtype.kind == "real floating" else None
        from ._creation import asarray
        q = asarray(q, dtype=dtype)
    return Array(_tensord.quantile(x._t, q._t, None if dim is None else int(dim), bool(keepdim),
                                   _INTERPOLATION[interpolation], skip_nan, caller()))


def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):  # noqa: A002
    """torch.quantile: q a number or a 0-d/1-d array in [0, 1]; a 1-d q adds a leading axis.
    A NaN in a reduced line gives NaN."""
    return _quantile(input, q, dim, keepdim, interpolation, False)


def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):  # noqa: A002
    """torch.nanquantile: quantile ignoring NaN (a line of NaN only gives NaN)."""
    return _quantile(input, q, dim, keepdim, interpolation, True)


def median(input, dim=None, keepdim=False):  # noqa: A002
    """torch.median: without dim the lower median of all elements (NaN if any is NaN); with
    dim a (values, indices) named tuple along dim."""
    if dim is None:
        return Array(_tensord.median(_operand_array(input)._t, False, caller()))
    return _pair("median", _tensord.median_axis(_operand_array(input)._t, int(dim),
                                                bool(keepdim), False, caller()))


def nanmedian(input, dim=None, keepdim=False):  # noqa: A002
    """torch.nanmedian: median skipping NaN (a line of NaN only gives NaN)."""
    if dim is None:
        return Array(_tensord.median(_operand_array(input)._t, True, caller()))
    return _pair("nanmedian", _tensord.median_axis(_operand_array(input)._t, int(dim),
                                                   bool(keepdim), True, caller()))


def topk(input, k, dim=-1, largest=True, sorted=True):  # noqa: A002
    """torch.topk: the k largest (or smallest) along dim, in order, with their indices
    (sorted=False too: PyTorch leaves that order unspecified)."""
    return _pair("topk", _tensord.topk(_operand_array(input)._t, int(k), int(dim),
                                       bool(largest), bool(sorted), caller()))


def kthvalue(input, k, dim=-1, keepdim=False):  # noqa: A002
    """torch.kthvalue: the k-th smallest (k from 1) along dim, with its index."""
    return _pair("kthvalue", _tensord.kthvalue(_operand_array(input)._t, int(k), int(dim),
                                               bool(keepdim), caller()))


def mode(input, dim=-1, keepdim=False):  # noqa: A002
    """torch.mode: the most frequent value along dim (ties: the smallest), at its last index."""
    return _pair("mode", _tensord.mode(_operand_array(input)._t, int(dim), bool(keepdim),
                                       caller()))


def cummax(input, dim):  # noqa: A002
    """torch.cummax: running maximum along dim and where it was found."""
    return _pair("cummax", _tensord.cummax(_operand_array(input)._t, int(dim), caller()))


def cummin(input, dim):  # noqa: A002
    """torch.cummin: running minimum along dim and where it was found."""
    return _pair("cummin", _tensord.cummin(_operand_array(input)._t, int(dim), caller()))
