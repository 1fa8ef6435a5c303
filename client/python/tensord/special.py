"""torch.special's functions the engine has (docs/ops.md): float functions like exp (integer
input gives float32), evaluated in float64 and rounded once."""
from . import _functions, _tensord
from ._array import Array, _operand, _operand_array
from ._location import caller

__all__ = ["lgamma", "gammaln", "digamma", "psi", "erfinv", "erfcx", "i0", "i0e", "i1", "i1e",
           "ndtr", "ndtri", "log_ndtr", "sinc", "entr", "logit", "expit", "xlogy", "xlog1py",
           "softmax", "log_softmax"]


def _unary(fn):
    def f(x, /):
        return Array(fn(_operand_array(x)._t, caller()))
    f.__name__ = fn.__name__
    return f


lgamma = gammaln = _unary(_tensord.lgamma)
digamma = psi = _unary(_tensord.digamma)
erfinv = _unary(_tensord.erfinv)
erfcx = _unary(_tensord.erfcx)
i0 = _unary(_tensord.i0)
i0e = _unary(_tensord.i0e)
i1 = _unary(_tensord.i1)
i1e = _unary(_tensord.i1e)
ndtr = _unary(_tensord.ndtr)
ndtri = _unary(_tensord.ndtri)
log_ndtr = _unary(_tensord.log_ndtr)
sinc = _unary(_tensord.sinc)
entr = _unary(_tensord.entr)
logit = _unary(_tensord.logit)
expit = _unary(_tensord.expit)
softmax = _functions.softmax
log_softmax = _functions.log_softmax


def xlogy(x, y, /):
    return Array(_tensord.xlogy(_operand(x), _operand(y), caller()))


def xlog1py(x, y, /):
    return Array(_tensord.xlog1py(_operand(x), _operand(y), caller()))
