"""Elementwise math of the Array API the engine gained in issue 4: inverse trigonometric and
hyperbolic functions, exp/log variants, logaddexp, hypot, copysign, signbit, floor_divide,
remainder and the bitwise functions (their operators are in _array.py)."""
from . import _tensord
from ._array import Array, _binary, _operand_array
from ._location import caller


def _unary(fn, name):
    def f(x, /):
        return Array(fn(_operand_array(x)._t, caller()))
    f.__name__ = name
    return f


def _binary_fn(fn, name):
    def f(x1, x2, /):
        return _binary(fn, x1, x2)
    f.__name__ = name
    return f


tan = _unary(_tensord.tan, "tan")
asin = _unary(_tensord.asin, "asin")
acos = _unary(_tensord.acos, "acos")
atan = _unary(_tensord.atan, "atan")
sinh = _unary(_tensord.sinh, "sinh")
cosh = _unary(_tensord.cosh, "cosh")
asinh = _unary(_tensord.asinh, "asinh")
acosh = _unary(_tensord.acosh, "acosh")
atanh = _unary(_tensord.atanh, "atanh")
expm1 = _unary(_tensord.expm1, "expm1")
log1p = _unary(_tensord.log1p, "log1p")
log2 = _unary(_tensord.log2, "log2")
log10 = _unary(_tensord.log10, "log10")
exp2 = _unary(_tensord.exp2, "exp2")  # beyond the standard, as in NumPy
signbit = _unary(_tensord.signbit, "signbit")
bitwise_invert = _unary(_tensord.bitwise_not, "bitwise_invert")
reciprocal = _unary(_tensord.reciprocal, "reciprocal")  # beyond the standard, as in NumPy
frac = _unary(_tensord.frac, "frac")  # torch's x - trunc(x)
erfc = _unary(_tensord.erfc, "erfc")  # torch's; also td.special.erfc

atan2 = _binary_fn(_tensord.atan2, "atan2")
hypot = _binary_fn(_tensord.hypot, "hypot")
logaddexp = _binary_fn(_tensord.logaddexp, "logaddexp")
logaddexp2 = _binary_fn(_tensord.logaddexp2, "logaddexp2")  # NumPy's
fmod = _binary_fn(_tensord.fmod, "fmod")  # C's sign (the dividend's), as NumPy and torch
copysign = _binary_fn(_tensord.copysign, "copysign")
floor_divide = _binary_fn(_tensord.floor_divide, "floor_divide")
remainder = _binary_fn(_tensord.remainder, "remainder")
bitwise_and = _binary_fn(_tensord.bitwise_and, "bitwise_and")
bitwise_or = _binary_fn(_tensord.bitwise_or, "bitwise_or")
bitwise_xor = _binary_fn(_tensord.bitwise_xor, "bitwise_xor")
bitwise_left_shift = _binary_fn(_tensord.bitwise_left_shift, "bitwise_left_shift")
bitwise_right_shift = _binary_fn(_tensord.bitwise_right_shift, "bitwise_right_shift")
# NumPy's: non-negative, of integers only; gcd(0, 0) = 0, lcm(x, 0) = 0; wrap at the minimum
gcd = _binary_fn(_tensord.gcd, "gcd")
lcm = _binary_fn(_tensord.lcm, "lcm")



def nan_to_num(x, /, nan=0.0, posinf=None, neginf=None):
    """NaN -> nan, +inf -> posinf, -inf -> neginf; the infinities default to the dtype's
    largest and lowest finite values (NumPy's and torch's nan_to_num)."""
    return Array(_tensord.nan_to_num(_operand_array(x)._t, float(nan),
                                     None if posinf is None else float(posinf),
                                     None if neginf is None else float(neginf), caller()))


__all__ = [n for n in list(globals()) if not n.startswith("_") and n not in ("Array", "caller")]
