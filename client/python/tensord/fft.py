"""td.fft: the Array API FFT extension (numpy.fft's functions) on the engine's FFT primitives
(docs/ops.md "FFT"). Real inputs of fft/fftn become complex; n and s pad with zeros or
truncate; norm is "backward" (default: the inverse scales by 1/n), "ortho" or "forward"."""
from . import _dtypes, _session, _tensord
from ._array import Array, _operand_array
from ._complex import conj
from ._location import caller

__all__ = ["fft", "ifft", "fftn", "ifftn", "rfft", "irfft", "rfftn", "irfftn", "hfft", "ihfft",
           "fft2", "ifft2", "rfft2", "irfft2", "fftfreq", "rfftfreq", "fftshift", "ifftshift"]

_NORMS = {"backward": 0, "ortho": 1, "forward": 2}
_SWAPPED = {"backward": "forward", "forward": "backward", "ortho": "ortho"}


def _norm(norm):
    if norm is None:
        return 0
    if norm not in _NORMS:
        raise ValueError(f'norm must be "backward", "ortho" or "forward", got {norm!r}')
    return _NORMS[norm]


def _one(n):
    return None if n is None else [int(n)]


def _nd_axes(x, s, axes):
    """numpy's defaults: axes are the last len(s) axes, or all of them."""
    if axes is not None:
        return [int(a) for a in axes]
    k = x.ndim if s is None else len(s)
    return list(range(x.ndim - k, x.ndim))


def _lengths(s):
    return None if s is None else [int(n) for n in s]


def fft(x, /, *, n=None, axis=-1, norm="backward"):
    x = _operand_array(x)
    return Array(_tensord.fftn_c2c(x._t, [axis], _one(n), _norm(norm), False, caller()))


def ifft(x, /, *, n=None, axis=-1, norm="backward"):
    x = _operand_array(x)
    return Array(_tensord.fftn_c2c(x._t, [axis], _one(n), _norm(norm), True, caller()))


def fftn(x, /, *, s=None, axes=None, norm="backward"):
    x = _operand_array(x)
    return Array(_tensord.fftn_c2c(x._t, _nd_axes(x, s, axes), _lengths(s), _norm(norm), False,
                                   caller()))


def ifftn(x, /, *, s=None, axes=None, norm="backward"):
    x = _operand_array(x)
    return Array(_tensord.fftn_c2c(x._t, _nd_axes(x, s, axes), _lengths(s), _norm(norm), True,
                                   caller()))


def fft2(x, /, *, s=None, axes=(-2, -1), norm="backward"):
    return fftn(x, s=s, axes=axes, norm=norm)


def ifft2(x, /, *, s=None, axes=(-2, -1), norm="backward"):
    return ifftn(x, s=s, axes=axes, norm=norm)


def rfft2(x, /, *, s=None, axes=(-2, -1), norm="backward"):
    return rfftn(x, s=s, axes=axes, norm=norm)


def irfft2(x, /, *, s=None, axes=(-2, -1), norm="backward"):
    return irfftn(x, s=s, axes=axes, norm=norm)


def rfft(x, /, *, n=None, axis=-1, norm="backward"):
    x = _operand_array(x)
    return Array(_tensord.fftn_r2c(x._t, [axis], _one(n), _norm(norm), caller()))


def irfft(x, /, *, n=None, axis=-1, norm="backward"):
    x = _operand_array(x)
    return Array(_tensord.fftn_c2r(x._t, [axis], _one(n), _norm(norm), caller()))


def rfftn(x, /, *, s=None, axes=None, norm="backward"):
    x = _operand_array(x)
    return Array(_tensord.fftn_r2c(x._t, _nd_axes(x, s, axes), _lengths(s), _norm(norm),
                                   caller()))


def irfftn(x, /, *, s=None, axes=None, norm="backward"):
    x = _operand_array(x)
    return Array(_tensord.fftn_c2r(x._t, _nd_axes(x, s, axes), _lengths(s), _norm(norm),
                                   caller()))


def hfft(x, /, *, n=None, axis=-1, norm="backward"):
    """The FFT of a Hermitian-symmetric signal given by its first half: irfft(conj(x)) with the
    norm's direction swapped (numpy.fft.hfft)."""
    _norm(norm)
    return irfft(conj(x), n=n, axis=axis, norm=_SWAPPED[norm or "backward"])


def ihfft(x, /, *, n=None, axis=-1, norm="backward"):
    _norm(norm)
    return conj(rfft(x, n=n, axis=axis, norm=_SWAPPED[norm or "backward"]))


def _freq_dtype(dtype):
    return _dtypes.default_float if dtype is None else _dtypes.to_dtype(dtype)


def fftfreq(n, /, *, d=1.0, dtype=None, device=None):
    return Array(_tensord.fftfreq(_session.session(), int(n), float(d),
                                  _freq_dtype(dtype)._engine, caller()))


def rfftfreq(n, /, *, d=1.0, dtype=None, device=None):
    return Array(_tensord.rfftfreq(_session.session(), int(n), float(d),
                                   _freq_dtype(dtype)._engine, caller()))


def _shift(x, axes, sign):
    from ._functions import roll
    x = _operand_array(x)
    if axes is None:
        axes = tuple(range(x.ndim))
    elif isinstance(axes, int):
        axes = (axes,)
    if not axes:
        return x
    shifts = [sign * (x.shape[a] // 2) for a in axes]
    return roll(x, shifts, axis=tuple(axes))


def fftshift(x, /, *, axes=None):
    return _shift(x, axes, 1)


def ifftshift(x, /, *, axes=None):
    return _shift(x, axes, -1)
