"""Issue 4's math beyond the Array API: nextafter, lerp, addcmul, addcdiv (docs/ops.md)."""
from . import _tensord
from ._array import Array, _operand, _operand_array
from ._location import caller

__all__ = ["nextafter", "lerp", "addcmul", "addcdiv"]


def nextafter(x1, x2, /):
    """The next float after x1 toward x2, on the dtype's grid (floats only)."""
    return Array(_tensord.nextafter(_operand(x1), _operand(x2), caller()))


def lerp(start, end, weight, /):
    """start + weight * (end - start), exact at weight 0 and 1 (floats only)."""
    return Array(_tensord.lerp(_operand(start), _operand(end), _operand(weight), caller()))


def addcmul(x, tensor1, tensor2, /, *, value=1):
    """x + value * tensor1 * tensor2."""
    return Array(_tensord.addcmul(_operand_array(x)._t, _operand_array(tensor1)._t,
                                  _operand_array(tensor2)._t, value, caller()))


def addcdiv(x, tensor1, tensor2, /, *, value=1):
    """x + value * tensor1 / tensor2 (floats only)."""
    return Array(_tensord.addcdiv(_operand_array(x)._t, _operand_array(tensor1)._t,
                                  _operand_array(tensor2)._t, value, caller()))
