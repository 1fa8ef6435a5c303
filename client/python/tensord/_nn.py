"""Activations (and, as they land, losses) in the style of torch.nn.functional (docs/ops.md).
Integer and bool inputs give float32, like gelu."""
from . import _tensord
from ._array import Array, _operand_array
from ._location import caller

__all__ = ["elu", "celu", "selu", "leaky_relu", "hardtanh", "hardsigmoid", "hardswish",
           "softplus", "softsign", "mish", "prelu", "glu"]


def _t(x):
    return _operand_array(x)._t


def elu(x, /, alpha=1.0):
    return Array(_tensord.elu(_t(x), float(alpha), caller()))


def celu(x, /, alpha=1.0):
    return Array(_tensord.celu(_t(x), float(alpha), caller()))


def selu(x, /):
    return Array(_tensord.selu(_t(x), caller()))


def leaky_relu(x, /, negative_slope=0.01):
    return Array(_tensord.leaky_relu(_t(x), float(negative_slope), caller()))


def hardtanh(x, /, min_val=-1.0, max_val=1.0):
    return Array(_tensord.hardtanh(_t(x), float(min_val), float(max_val), caller()))


def hardsigmoid(x, /):
    return Array(_tensord.hardsigmoid(_t(x), caller()))


def hardswish(x, /):
    return Array(_tensord.hardswish(_t(x), caller()))


def softplus(x, /, beta=1.0, threshold=20.0):
    return Array(_tensord.softplus(_t(x), float(beta), float(threshold), caller()))


def softsign(x, /):
    return Array(_tensord.softsign(_t(x), caller()))


def mish(x, /):
    return Array(_tensord.mish(_t(x), caller()))


def prelu(x, weight, /):
    """weight: one element, or one per channel (axis 1 of x)."""
    return Array(_tensord.prelu(_t(x), _t(weight), caller()))


def glu(x, /, axis=-1):
    return Array(_tensord.glu(_t(x), int(axis), caller()))
