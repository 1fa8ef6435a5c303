"""Issue 4's math beyond the Array API (nextafter, lerp, addcmul, addcdiv) and its extra
reductions and scans (amax, nansum, logsumexp, norm, cumsum, ...); see docs/ops.md."""
from . import _functions, _tensord
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


# --- reductions and scans (issue 4) --------------------------------------------------------
# all, any, count_nonzero and std stay in _functions.py (Array API composites there).
__all__ += ["amax", "amin", "nansum", "nanmean", "logsumexp", "norm", "cumsum", "cumprod",
            "logcumsumexp", "cumulative_sum", "cumulative_prod"]


def _axes(axis):
    if axis is None:
        return None
    return [axis] if isinstance(axis, int) else list(axis)


def _reduction(fn):
    def f(x, /, *, axis=None, keepdims=False):
        return Array(fn(_operand_array(x)._t, _axes(axis), keepdims, caller()))
    f.__name__ = fn.__name__
    return f


amax = _reduction(_tensord.amax)
amin = _reduction(_tensord.amin)
nansum = _reduction(_tensord.nansum)
nanmean = _reduction(_tensord.nanmean)
logsumexp = _reduction(_tensord.logsumexp)


def norm(x, /, ord=2, *, axis=None, keepdims=False):
    """The vector p-norm over `axis` (all axes by default); ord may be inf, -inf or 0."""
    return Array(_tensord.norm(_operand_array(x)._t, float(ord), _axes(axis), keepdims,
                               caller()))


def _scan(fn):
    def f(x, /, axis):
        return Array(fn(_operand_array(x)._t, int(axis), caller()))
    f.__name__ = fn.__name__
    return f


cumsum = _scan(_tensord.cumsum)
cumprod = _scan(_tensord.cumprod)
logcumsumexp = _scan(_tensord.logcumsumexp)


def _cumulative(fn, initial, x, axis, include_initial):
    x = _operand_array(x)
    if axis is None:
        if x.ndim != 1:
            raise ValueError("axis is required for arrays of rank other than 1")
        axis = 0
    y = Array(fn(x._t, int(axis), caller()))
    if include_initial:
        axis = axis % x.ndim
        pads = [0] * (2 * x.ndim)
        pads[2 * axis] = 1
        y = Array(_tensord.pad(y._t, pads, initial, caller()))
    return y


def cumulative_sum(x, /, *, axis=None, dtype=None, include_initial=False):
    if dtype is not None:
        x = _functions.astype(_operand_array(x), dtype)
    return _cumulative(_tensord.cumsum, 0, x, axis, include_initial)


def cumulative_prod(x, /, *, axis=None, dtype=None, include_initial=False):
    if dtype is not None:
        x = _functions.astype(_operand_array(x), dtype)
    return _cumulative(_tensord.cumprod, 1, x, axis, include_initial)


__all__ += ["frexp"]


def frexp(x, /):
    """(mantissa, exponent) with x = mantissa * 2**exponent and 0.5 <= |mantissa| < 1, as
    np.frexp (exponent int32; floats only). One node computes both."""
    mantissa, exponent = _tensord.frexp(_operand_array(x)._t, caller())
    return Array(mantissa), Array(exponent)
