"""td.Array: a handle to a lazily recorded tensor, with NumPy-like operators and interop."""
import builtins

import numpy as np

from . import _dtypes, _indexing, _repr, _tensord, _transfer
from ._location import caller
from ._methods import ArrayMethods


class Array(ArrayMethods):
    """A tensor recorded on a tensord session. Ops record nodes; nothing is sent until a sync
    point (`numpy()`, `item()`, `repr`, `td.sync`, `np.asarray`). NumPy's ndarray methods
    (x.sum(), x.reshape(...), ...) come from ArrayMethods."""

    __slots__ = ("_t", "__weakref__")
    __array_priority__ = 1000  # NumPy defers `ndarray + Array` to Array.__radd__

    def __init__(self, tensor):
        self._t = tensor

    # --- attributes -----------------------------------------------------------------------
    @property
    def shape(self):
        return self._t.shape

    @property
    def dtype(self):
        return _dtypes.from_engine(self._t.dtype)

    @property
    def ndim(self):
        return len(self._t.shape)

    @property
    def size(self):
        n = 1
        for d in self._t.shape:
            if d is None:  # a data-dependent size, known once synced (Array API: None)
                return None
            n *= d
        return n

    @property
    def device(self):
        return _repr.current_device()

    def to_device(self, device, /, *, stream=None):
        if device == self.device:
            return self
        raise NotImplementedError(f"tensord: arrays live on {self.device}; moving them to "
                                  f"{device} is not supported yet")

    @property
    def T(self):
        if self.ndim != 2:
            raise ValueError(f"x.T needs a 2-D array, got {self.ndim}-D; use matrix_transpose")
        return Array(_tensord.transpose(self._t, 0, 1, caller()))

    @property
    def mT(self):
        from . import _functions
        return _functions.matrix_transpose(self)

    def __array_namespace__(self, api_version=None):
        import tensord
        return tensord

    # --- sync points ----------------------------------------------------------------------
    def numpy(self):
        """The values as a new NumPy array (one round trip if pending). bfloat16 arrays come
        back widened to float32, which holds every bfloat16 value exactly."""
        out = _transfer.to_numpy(self._t, caller())
        if self._t.dtype == _tensord.DType.bfloat16:
            out = (out.astype(np.uint32) << 16).view(np.float32)
        return out

    # NumPy's functions and ufuncs on tensord arrays run in the daemon (_numpy_dispatch.py).
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        from . import _numpy_dispatch
        return _numpy_dispatch.array_ufunc(ufunc, method, inputs, kwargs)

    def __array_function__(self, func, types, args, kwargs):
        from . import _numpy_dispatch
        return _numpy_dispatch.array_function(func, args, kwargs)

    def __array__(self, dtype=None, copy=None):
        out = self.numpy()
        return out if dtype is None else out.astype(dtype, copy=False)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """DLPack of the fetched values (a sync point): a host copy, as NumPy exports it."""
        return self.numpy().__dlpack__()

    def __dlpack_device__(self):
        return (1, 0)  # kDLCPU: the exported values live in host memory

    def item(self):
        if self.size is None:  # a data-dependent size: sync to learn it
            from . import _session
            _session.session().sync([self._t], caller())
        if self.size != 1:
            raise ValueError(f"item() needs exactly one element, the array has shape {self.shape}")
        return self.numpy().reshape(-1)[0].item()

    def __float__(self):
        return float(self.item())

    def __int__(self):
        return int(self.item())

    def __bool__(self):
        return builtins.bool(self.item())

    def __index__(self):
        if not _dtypes.is_integral(self.dtype):
            raise TypeError(f"only integer arrays can be indices, not {self.dtype.name}")
        return int(self.item())

    def __len__(self):
        if self.ndim == 0:
            raise TypeError("len() of a 0-d array")
        if self.shape[0] is None:  # a data-dependent size: sync to learn it
            from . import _session
            _session.session().sync([self._t], caller())
        return self.shape[0]

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]

    def __repr__(self):
        return _repr.array_repr(self)

    def _repr_html_(self):
        # Notebooks render every result: evaluate only what is cheap (evaluated, or small).
        return _repr.array_html(self)

    def _repr_pretty_(self, p, cycle):
        _repr.array_pretty(self, p, cycle)

    # --- indexing ---------------------------------------------------------------------------
    def unfold(self, axis, size, step):
        """torch.Tensor.unfold: windows of `size` every `step` along axis, as a new last axis."""
        return Array(_tensord.unfold(self._t, int(axis), int(size), int(step), caller()))

    def __getitem__(self, key):
        return _index(self, key, caller())

    def __setitem__(self, key, value):
        """Rebinding, not mutation: this handle now names a new value; other arrays, including
        slices taken from it before, keep theirs (see _assign)."""
        from ._assign import assign
        self._t = assign(self, key, value, caller())

    # --- operators --------------------------------------------------------------------------
    def __add__(self, other): return _binary(_tensord.add, self, other)
    def __radd__(self, other): return _binary(_tensord.add, other, self)
    def __sub__(self, other): return _binary(_tensord.sub, self, other)
    def __rsub__(self, other): return _binary(_tensord.sub, other, self)
    def __mul__(self, other): return _binary(_tensord.mul, self, other)
    def __rmul__(self, other): return _binary(_tensord.mul, other, self)
    def __truediv__(self, other): return _binary(_tensord.div, self, other)
    def __rtruediv__(self, other): return _binary(_tensord.div, other, self)
    def __pow__(self, other): return _binary(_tensord.pow, self, other)
    def __rpow__(self, other): return _binary(_tensord.pow, other, self)
    def __eq__(self, other): return _binary(_tensord.eq, self, other)
    def __ne__(self, other): return _binary(_tensord.ne, self, other)
    def __lt__(self, other): return _binary(_tensord.lt, self, other)
    def __le__(self, other): return _binary(_tensord.le, self, other)
    def __gt__(self, other): return _binary(_tensord.gt, self, other)
    def __ge__(self, other): return _binary(_tensord.ge, self, other)
    __hash__ = None  # == records an op, as in NumPy

    def __matmul__(self, other):
        return Array(_tensord.matmul(self._t, _operand_array(other)._t, caller()))

    def __rmatmul__(self, other):
        return Array(_tensord.matmul(_operand_array(other)._t, self._t, caller()))

    def __neg__(self):
        return Array(_tensord.neg(self._t, caller()))

    def __pos__(self):
        return self

    def __abs__(self):
        return Array(_tensord.abs(self._t, caller()))

    def __invert__(self):
        return Array(_tensord.bitwise_not(self._t, caller()))

    def __and__(self, other): return _binary(_tensord.bitwise_and, self, other)
    def __rand__(self, other): return _binary(_tensord.bitwise_and, other, self)
    def __or__(self, other): return _binary(_tensord.bitwise_or, self, other)
    def __ror__(self, other): return _binary(_tensord.bitwise_or, other, self)
    def __xor__(self, other): return _binary(_tensord.bitwise_xor, self, other)
    def __rxor__(self, other): return _binary(_tensord.bitwise_xor, other, self)
    def __lshift__(self, other): return _binary(_tensord.bitwise_left_shift, self, other)
    def __rlshift__(self, other): return _binary(_tensord.bitwise_left_shift, other, self)
    def __rshift__(self, other): return _binary(_tensord.bitwise_right_shift, self, other)
    def __rrshift__(self, other): return _binary(_tensord.bitwise_right_shift, other, self)
    def __floordiv__(self, other): return _binary(_tensord.floor_divide, self, other)
    def __rfloordiv__(self, other): return _binary(_tensord.floor_divide, other, self)
    def __mod__(self, other): return _binary(_tensord.remainder, self, other)
    def __rmod__(self, other): return _binary(_tensord.remainder, other, self)


def _operand(x):
    """An Array's tensor, a Python number, or (NumPy values) a new uploaded tensor."""
    if isinstance(x, Array):
        return x._t
    if isinstance(x, (builtins.bool, int, float)):
        return x
    if isinstance(x, np.generic) and x.ndim == 0 and x.dtype.kind in "biuf":  # complex: below
        return x.item()
    return _operand_array(x)._t


def _operand_array(x):
    if isinstance(x, Array):
        return x
    from ._creation import asarray
    return asarray(x)


def _complex_scalar(value, other):
    """A Python complex next to an array: a 0-d array of the complex dtype of the array's
    precision (a weak scalar, as float scalars are: complex64 arrays stay complex64)."""
    from ._creation import asarray
    d = _dtypes.complex_of(other.dtype if isinstance(other, Array) else _dtypes.float32)
    return asarray(np.array(value, dtype=d.numpy_dtype))


def _binary(fn, a, b):
    if isinstance(a, complex):
        a = _complex_scalar(a, b)
    if isinstance(b, complex):
        b = _complex_scalar(b, a)
    return Array(fn(_operand(a), _operand(b), caller()))


def _index(x, key, loc):
    """Basic indexing: integers, slices, `...` and `None`."""
    if None in x.shape:  # a data-dependent size: indexing checks bounds, so learn it first
        from . import _session
        _session.session().sync([x._t], loc)
    if not isinstance(key, tuple):
        key = (key,)
    if builtins.any(_indexing.is_advanced(k) or isinstance(k, builtins.bool) for k in key):
        return _indexing.advanced(x, key, loc)
    for k in key:
        if not (k is None or k is Ellipsis or isinstance(k, (int, slice, np.integer))):
            raise IndexError(f"tensord: unsupported index {k!r}")
    if builtins.sum(k is Ellipsis for k in key) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    used = builtins.sum(1 for k in key if k is not None and k is not Ellipsis)
    if used > x.ndim:
        raise IndexError(f"too many indices: the array is {x.ndim}-D, {used} were indexed")
    if Ellipsis in key:
        i = key.index(Ellipsis)
        key = key[:i] + (slice(None),) * (x.ndim - used) + key[i + 1:]

    t = x._t
    axis = 0
    drop = []
    for k in key:
        if k is None:
            t = _tensord.unsqueeze(t, [axis], loc)
            axis += 1
        elif isinstance(k, slice):
            if k != slice(None):
                step = 1 if k.step is None else int(k.step)
                if step == 0:
                    raise ValueError("slice step cannot be zero")
                start = None if k.start is None else int(k.start)
                stop = None if k.stop is None else int(k.stop)
                t = _tensord.slice(t, axis, start, stop, step, loc)
            axis += 1
        else:
            n = t.shape[axis]
            i = int(k)
            if not -n <= i < n:
                raise IndexError(f"index {i} is out of bounds for axis {axis} with size {n}")
            i %= n
            t = _tensord.slice(t, axis, i, i + 1, 1, loc)
            drop.append(axis)
            axis += 1
    if drop:
        t = _tensord.squeeze(t, drop, loc)
    return Array(t)
