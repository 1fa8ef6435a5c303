"""Creation functions: they record on the current session (see _session)."""
import builtins

import numpy as np

from . import _dtypes, _session, _tensord, _transfer
from ._array import Array
from ._location import caller


def _shape(shape):
    if isinstance(shape, (int, np.integer)):
        return [int(shape)]
    return [int(d) for d in shape]


def _default_dtype_of(value):
    if isinstance(value, builtins.bool):
        return _dtypes.bool
    if isinstance(value, int):
        return _dtypes.default_int
    if isinstance(value, float):
        return _dtypes.default_float
    if isinstance(value, complex):
        return _dtypes.complex64  # the default float's complex dtype
    raise TypeError(f"expected a Python bool, int or float, got {type(value).__name__}")


def asarray(obj, /, *, dtype=None, device=None, copy=None):
    """An Array from an Array, a NumPy array, a nested list or a Python scalar. Python floats
    become float32 (tensord's default float, as in PyTorch); NumPy arrays keep their dtype.
    Host values are sent at the next sync point that needs them."""
    dtype = None if dtype is None else _dtypes.to_dtype(dtype)
    if isinstance(obj, Array):
        if dtype is None or obj.dtype is dtype:
            return obj
        return Array(_tensord.astype(obj._t, dtype._engine, caller()))
    if not isinstance(obj, (np.ndarray, np.generic)) and hasattr(obj, "__dlpack__"):
        obj = np.from_dlpack(obj)  # host memory only (NumPy's DLPack import)
    from_numpy = isinstance(obj, (np.ndarray, np.generic))
    a = np.asarray(obj)
    if not from_numpy and a.dtype == np.float64:
        a = a.astype(np.float32)
    if not from_numpy and a.dtype.kind == "i":
        a = a.astype(np.int64)
    if not from_numpy and a.dtype == np.complex128:  # Python complex: complex64, like floats
        a = a.astype(np.complex64)
    if a.dtype.kind not in "biufc":
        raise TypeError(f"tensord.asarray: cannot make an array of {a.dtype} values")
    loc = caller()
    target = dtype if dtype is not None else _dtypes.from_numpy(a.dtype)
    upload = _dtypes.float32 if target is _dtypes.bfloat16 else target
    a = a.astype(upload.numpy_dtype, order="C", copy=False)  # (ascontiguousarray makes 0-d 1-d)
    t = _transfer.from_numpy(_session.session(), upload._engine, a, loc)
    if upload is not target:
        t = _tensord.astype(t, target._engine, loc)
    return Array(t)


def full(shape, fill_value, *, dtype=None, device=None):
    d = _dtypes.to_dtype(dtype) if dtype is not None else _default_dtype_of(fill_value)
    if isinstance(fill_value, np.generic):
        fill_value = fill_value.item()
    if isinstance(fill_value, complex) or _dtypes.is_complex(d):
        # The wire's scalars are real: a complex fill is complex(full(re), full(im)).
        value = complex(fill_value)
        if not _dtypes.is_complex(d):
            raise TypeError(f"full: a complex fill value needs a complex dtype, not {d.name}")
        part, s, loc = _dtypes.real_of(d), _session.session(), caller()
        re = s.full(_shape(shape), value.real, part._engine, loc)
        im = s.full(_shape(shape), value.imag, part._engine, loc)
        return Array(_tensord.complex(re, im, loc))
    return Array(_session.session().full(_shape(shape), fill_value, d._engine, caller()))


def zeros(shape, *, dtype=None, device=None):
    d = _dtypes.to_dtype(dtype) if dtype is not None else _dtypes.default_float
    return Array(_session.session().full(_shape(shape), 0, d._engine, caller()))


def ones(shape, *, dtype=None, device=None):
    d = _dtypes.to_dtype(dtype) if dtype is not None else _dtypes.default_float
    return Array(_session.session().full(_shape(shape), 1, d._engine, caller()))


def empty(shape, *, dtype=None, device=None):
    """Zeros: the engine has no uninitialised tensors."""
    d = _dtypes.to_dtype(dtype) if dtype is not None else _dtypes.default_float
    return Array(_session.session().full(_shape(shape), 0, d._engine, caller()))


def full_like(x, fill_value, *, dtype=None, device=None):
    return full(x.shape, fill_value, dtype=dtype or x.dtype)


def zeros_like(x, *, dtype=None, device=None):
    return zeros(x.shape, dtype=dtype or x.dtype)


def ones_like(x, *, dtype=None, device=None):
    return ones(x.shape, dtype=dtype or x.dtype)


def empty_like(x, *, dtype=None, device=None):
    return zeros(x.shape, dtype=dtype or x.dtype)


def arange(start, /, stop=None, step=1, *, dtype=None, device=None):
    if stop is None:
        start, stop = 0, start
    d = None if dtype is None else _dtypes.to_dtype(dtype)._engine
    return Array(_session.session().arange(start, stop, step, d, caller()))


def eye(n_rows, n_cols=None, /, *, k=0, dtype=None, device=None):
    d = _dtypes.to_dtype(dtype) if dtype is not None else _dtypes.default_float
    return Array(_session.session().eye(n_rows, n_cols, k, d._engine, caller()))


def from_dlpack(x, /, *, device=None, copy=None):
    """An Array from any object with `__dlpack__` whose memory is on the host."""
    return asarray(np.from_dlpack(x))
