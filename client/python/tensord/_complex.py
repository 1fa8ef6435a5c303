"""Complex numbers (issue 4; docs/ops.md "Complex numbers"): real, imag, conj, angle and
complex. real and conj of a real array return it (as NumPy does); imag needs a complex array."""
from . import _dtypes, _tensord
from ._array import Array, _operand_array
from ._location import caller

__all__ = ["real", "imag", "conj", "angle", "complex"]


def real(x, /):
    x = _operand_array(x)
    if not _dtypes.is_complex(x.dtype):
        return x
    return Array(_tensord.real(x._t, caller()))


def imag(x, /):
    return Array(_tensord.imag(_operand_array(x)._t, caller()))


def conj(x, /):
    x = _operand_array(x)
    if not _dtypes.is_complex(x.dtype):
        return x
    return Array(_tensord.conj(x._t, caller()))


def angle(x, /):
    return Array(_tensord.angle(_operand_array(x)._t, caller()))


def complex(real, imag, /):  # noqa: A001 (torch.complex)
    """real + 1j * imag from two float arrays (broadcast): complex64, or complex128 when either
    is float64."""
    return Array(_tensord.complex(_operand_array(real)._t, _operand_array(imag)._t, caller()))
