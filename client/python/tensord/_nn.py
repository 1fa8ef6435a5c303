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


# --- losses (issue 4) -----------------------------------------------------------------------
__all__ += ["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "binary_cross_entropy",
            "binary_cross_entropy_with_logits", "kl_div", "cross_entropy", "nll_loss",
            "cosine_similarity"]

_REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}


def _code(reduction, allowed=_REDUCTIONS):
    if reduction not in allowed:
        raise ValueError(f"reduction must be one of {sorted(allowed)}, got {reduction!r}")
    return allowed[reduction]


def mse_loss(input, target, /, reduction="mean"):  # noqa: A002 (torch's names)
    return Array(_tensord.mse_loss(_t(input), _t(target), _code(reduction), caller()))


def l1_loss(input, target, /, reduction="mean"):  # noqa: A002
    return Array(_tensord.l1_loss(_t(input), _t(target), _code(reduction), caller()))


def smooth_l1_loss(input, target, /, reduction="mean", beta=1.0):  # noqa: A002
    return Array(_tensord.smooth_l1_loss(_t(input), _t(target), _code(reduction), float(beta),
                                         caller()))


def huber_loss(input, target, /, reduction="mean", delta=1.0):  # noqa: A002
    return Array(_tensord.huber_loss(_t(input), _t(target), _code(reduction), float(delta),
                                     caller()))


def binary_cross_entropy(input, target, /, reduction="mean"):  # noqa: A002
    return Array(_tensord.binary_cross_entropy(_t(input), _t(target), _code(reduction),
                                               caller()))


def binary_cross_entropy_with_logits(input, target, /, reduction="mean"):  # noqa: A002
    return Array(_tensord.binary_cross_entropy_with_logits(_t(input), _t(target),
                                                           _code(reduction), caller()))


def kl_div(input, target, /, reduction="mean", log_target=False):  # noqa: A002
    code = _code(reduction, {**_REDUCTIONS, "batchmean": 3})
    return Array(_tensord.kl_div(_t(input), _t(target), code, bool(log_target), caller()))


def cross_entropy(input, target, /, weight=None, ignore_index=-100,  # noqa: A002
                  reduction="mean", label_smoothing=0.0):
    """target: class indices (integers) or probabilities (floats of the input's shape).
    weight: optional class weights, shape (classes,)."""
    if weight is not None:
        return Array(_tensord.weighted_cross_entropy(_t(input), _t(target), _t(weight),
                                                     _code(reduction), int(ignore_index),
                                                     float(label_smoothing), caller()))
    return Array(_tensord.cross_entropy(_t(input), _t(target), _code(reduction),
                                        int(ignore_index), float(label_smoothing), caller()))


def nll_loss(input, target, /, weight=None, ignore_index=-100, reduction="mean"):  # noqa: A002
    if weight is not None:
        return Array(_tensord.weighted_nll_loss(_t(input), _t(target), _t(weight),
                                                _code(reduction), int(ignore_index), caller()))
    return Array(_tensord.nll_loss(_t(input), _t(target), _code(reduction), int(ignore_index),
                                   caller()))


def cosine_similarity(x1, x2, /, axis=1, eps=1e-8):
    return Array(_tensord.cosine_similarity(_t(x1), _t(x2), int(axis), float(eps), caller()))
