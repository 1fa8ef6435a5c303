"""Sorting (issue 4, docs/ops.md): the Array API's sort and argsort, torch-style quantile,
nanquantile, median and nanmedian (of all elements)."""
from . import _tensord
from ._array import Array, _operand_array
from ._location import caller

__all__ = ["sort", "argsort", "quantile", "nanquantile", "median", "nanmedian"]

_INTERPOLATION = {"linear": 0, "lower": 1, "higher": 2, "nearest": 3, "midpoint": 4}


def sort(x, /, *, axis=-1, descending=False, stable=True):
    """The values of x sorted along axis; NaN sorts last (first when descending)."""
    return Array(_tensord.sort(_operand_array(x)._t, int(axis), bool(descending), bool(stable),
                               caller()))


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


def median(input, /):  # noqa: A002
    """The lower median of all elements (torch.median(input)); NaN if any element is NaN."""
    return Array(_tensord.median(_operand_array(input)._t, False, caller()))


def nanmedian(input, /):  # noqa: A002
    """The lower median of the non-NaN elements (torch.nanmedian(input))."""
    return Array(_tensord.median(_operand_array(input)._t, True, caller()))
