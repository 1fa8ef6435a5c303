"""torch.special's functions the engine has (docs/ops.md): float functions like exp (integer
input gives float32), evaluated in float64 and rounded once."""
from . import _functions, _tensord
from ._array import Array, _operand, _operand_array
from ._location import caller

__all__ = ["lgamma", "gammaln", "digamma", "psi", "erfinv", "erfc", "erfcx", "i0", "i0e", "i1", "i1e",
           "ndtr", "ndtri", "log_ndtr", "sinc", "entr", "logit", "expit", "xlogy", "xlog1py",
           "softmax", "log_softmax", "polygamma", "multigammaln", "gammainc", "gammaincc",
           "bessel_j0", "bessel_j1", "zeta"]


def _unary(fn):
    def f(x, /):
        return Array(fn(_operand_array(x)._t, caller()))
    f.__name__ = fn.__name__
    return f


lgamma = gammaln = _unary(_tensord.lgamma)
digamma = psi = _unary(_tensord.digamma)
erfinv = _unary(_tensord.erfinv)
erfc = _unary(_tensord.erfc)
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


def logit(x, /, eps=None):
    """log(x / (1 - x)); with eps, x is clamped to [eps, 1 - eps] first (torch.special.logit)."""
    t = _operand_array(x)._t
    if eps is None:
        return Array(_tensord.logit(t, caller()))
    return Array(_tensord.logit_eps(t, float(eps), caller()))


expit = _unary(_tensord.expit)
softmax = _functions.softmax
log_softmax = _functions.log_softmax


def xlogy(x, y, /):
    return Array(_tensord.xlogy(_operand(x), _operand(y), caller()))


def xlog1py(x, y, /):
    return Array(_tensord.xlog1py(_operand(x), _operand(y), caller()))


def polygamma(n, x, /):
    """The n-th derivative of digamma (torch.special.polygamma(n, input)); n >= 0."""
    return Array(_tensord.polygamma(int(n), _operand_array(x)._t, caller()))


def multigammaln(x, p, /):
    """log of the multivariate gamma function of dimension p >= 1; NaN where x <= (p - 1) / 2
    (PyTorch raises there)."""
    return Array(_tensord.multigammaln(_operand_array(x)._t, int(p), caller()))


def gammainc(a, x, /):
    """The regularized lower incomplete gamma function P(a, x)."""
    return Array(_tensord.gammainc(_operand(a), _operand(x), caller()))


def gammaincc(a, x, /):
    """The regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x)."""
    return Array(_tensord.gammaincc(_operand(a), _operand(x), caller()))


bessel_j0 = _unary(_tensord.bessel_j0)
bessel_j1 = _unary(_tensord.bessel_j1)


def zeta(x, q, /):
    """The Hurwitz zeta function sum_k (k + q)^-x (torch.special.zeta)."""
    return Array(_tensord.zeta(_operand(x), _operand(q), caller()))
