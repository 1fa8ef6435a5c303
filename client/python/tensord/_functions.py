"""The Array API functions (2023.12), plus nn functions; the rest of the namespace is bound in
the modules __init__ imports (_index_more has the unique_* functions)."""
import builtins
import math

from . import _dtypes, _session, _tensord
from ._array import Array, _binary, _operand, _operand_array
from ._location import caller


def _unary(fn):
    def f(x, /):
        return Array(fn(_operand_array(x)._t, caller()))
    f.__name__ = fn.__name__
    return f


def _binary_fn(fn, name):
    def f(x1, x2, /):
        return _binary(fn, x1, x2)
    f.__name__ = name
    return f


# --- elementwise ---------------------------------------------------------------------------
abs = _unary(_tensord.abs)  # noqa: A001
exp = _unary(_tensord.exp)
log = _unary(_tensord.log)
sqrt = _unary(_tensord.sqrt)
sin = _unary(_tensord.sin)
cos = _unary(_tensord.cos)
tanh = _unary(_tensord.tanh)
floor = _unary(_tensord.floor)
ceil = _unary(_tensord.ceil)
round = _unary(_tensord.round)  # noqa: A001 (half to even, as the Array API says)
sign = _unary(_tensord.sign)
negative = _unary(_tensord.neg)
logical_not = _unary(_tensord.logical_not)
# Beyond the standard.
rsqrt = _unary(_tensord.rsqrt)
sigmoid = _unary(_tensord.sigmoid)
erf = _unary(_tensord.erf)
relu = _unary(_tensord.relu)
silu = _unary(_tensord.silu)

add = _binary_fn(_tensord.add, "add")
subtract = _binary_fn(_tensord.sub, "subtract")
multiply = _binary_fn(_tensord.mul, "multiply")
divide = _binary_fn(_tensord.div, "divide")
pow = _binary_fn(_tensord.pow, "pow")  # noqa: A001
maximum = _binary_fn(_tensord.maximum, "maximum")
minimum = _binary_fn(_tensord.minimum, "minimum")
equal = _binary_fn(_tensord.eq, "equal")
not_equal = _binary_fn(_tensord.ne, "not_equal")
less = _binary_fn(_tensord.lt, "less")
less_equal = _binary_fn(_tensord.le, "less_equal")
greater = _binary_fn(_tensord.gt, "greater")
greater_equal = _binary_fn(_tensord.ge, "greater_equal")
logical_and = _binary_fn(_tensord.logical_and, "logical_and")
logical_or = _binary_fn(_tensord.logical_or, "logical_or")


def positive(x, /):
    return _operand_array(x)


def square(x, /):
    x = _operand_array(x)
    return Array(_tensord.mul(x._t, x._t, caller()))


def logical_xor(x1, x2, /):
    loc = caller()
    a = _tensord.astype(_operand_array(x1)._t, _dtypes.bool._engine, loc)
    b = _tensord.astype(_operand_array(x2)._t, _dtypes.bool._engine, loc)
    return Array(_tensord.ne(a, b, loc))


def isnan(x, /):
    t = _operand_array(x)._t
    return Array(_tensord.ne(t, t, caller()))


def isinf(x, /):
    loc = caller()
    x = _operand_array(x)
    if _dtypes.is_complex(x.dtype):
        return Array(_tensord.isinf(x._t, loc))  # either part infinite
    if not _dtypes.is_floating(x.dtype):
        return Array(_tensord.ne(x._t, x._t, loc))  # all False, x's shape
    return Array(_tensord.eq(_tensord.abs(x._t, loc), math.inf, loc))


def isfinite(x, /):
    loc = caller()
    x = _operand_array(x)
    if _dtypes.is_complex(x.dtype):
        return Array(_tensord.isfinite(x._t, loc))  # both parts finite
    if not _dtypes.is_floating(x.dtype):
        return Array(_tensord.eq(x._t, x._t, loc))  # all True
    return Array(_tensord.lt(_tensord.abs(x._t, loc), math.inf, loc))


def trunc(x, /):
    loc = caller()
    t = _operand_array(x)._t
    return Array(_tensord.where(_tensord.lt(t, 0, loc), _tensord.ceil(t, loc),
                                _tensord.floor(t, loc), loc))


def clip(x, /, min=None, max=None):
    x = _operand_array(x)
    if min is None and max is None:
        return x
    return Array(_tensord.clamp(x._t, min, max, caller()))


def where(condition, x1=None, x2=None, /):
    """where(condition, x1, x2); where(condition) alone is nonzero(condition) (NumPy, torch)."""
    if x1 is None and x2 is None:
        from ._index_more import nonzero
        return nonzero(condition)
    if x1 is None or x2 is None:
        raise TypeError("where takes a condition alone or with both x1 and x2")
    return Array(_tensord.where(_operand_array(condition)._t, _operand(x1), _operand(x2),
                                caller()))


def astype(x, dtype, /, *, copy=True, device=None):
    return Array(_tensord.astype(_operand_array(x)._t, _dtypes.to_dtype(dtype)._engine, caller()))


# --- statistical and searching ---------------------------------------------------------------
def _axes(axis):
    if axis is None:
        return None
    if isinstance(axis, int):
        return [axis]
    return [int(a) for a in axis]


def _reduce(fn, name):
    def f(x, /, *, axis=None, keepdims=False):
        return Array(fn(_operand_array(x)._t, _axes(axis), keepdims, caller()))
    f.__name__ = name
    return f


max = _reduce(_tensord.max, "max")  # noqa: A001
min = _reduce(_tensord.min, "min")  # noqa: A001
mean = _reduce(_tensord.mean, "mean")


def sum(x, /, *, axis=None, dtype=None, keepdims=False):  # noqa: A001
    loc = caller()
    t = _operand_array(x)._t
    if dtype is not None:
        t = _tensord.astype(t, _dtypes.to_dtype(dtype)._engine, loc)
    return Array(_tensord.sum(t, _axes(axis), keepdims, loc))


def prod(x, /, *, axis=None, dtype=None, keepdims=False):
    loc = caller()
    t = _operand_array(x)._t
    if dtype is not None:
        t = _tensord.astype(t, _dtypes.to_dtype(dtype)._engine, loc)
    return Array(_tensord.prod(t, _axes(axis), keepdims, loc))


def var(x, /, *, axis=None, correction=0.0, keepdims=False):
    return Array(_tensord.var(_operand_array(x)._t, _axes(axis), float(correction), keepdims,
                              caller()))


def std(x, /, *, axis=None, correction=0.0, keepdims=False):
    loc = caller()
    v = _tensord.var(_operand_array(x)._t, _axes(axis), float(correction), keepdims, loc)
    return Array(_tensord.sqrt(v, loc))


def argmax(x, /, *, axis=None, keepdims=False):
    return Array(_tensord.argmax(_operand_array(x)._t, axis, keepdims, caller()))


def argmin(x, /, *, axis=None, keepdims=False):
    return Array(_tensord.argmin(_operand_array(x)._t, axis, keepdims, caller()))


def any(x, /, *, axis=None, keepdims=False):  # noqa: A001
    loc = caller()
    b = _tensord.astype(_operand_array(x)._t, _dtypes.bool._engine, loc)
    return Array(_tensord.gt(_tensord.sum(b, _axes(axis), keepdims, loc), 0, loc))


def all(x, /, *, axis=None, keepdims=False):  # noqa: A001
    loc = caller()
    b = _tensord.logical_not(_tensord.astype(_operand_array(x)._t, _dtypes.bool._engine, loc), loc)
    return Array(_tensord.eq(_tensord.sum(b, _axes(axis), keepdims, loc), 0, loc))


def count_nonzero(x, /, *, axis=None, keepdims=False):
    loc = caller()
    nz = _tensord.ne(_operand_array(x)._t, 0, loc)
    return Array(_tensord.sum(nz, _axes(axis), keepdims, loc))


# --- manipulation --------------------------------------------------------------------------
def reshape(x, /, shape, *, copy=None):
    return Array(_tensord.reshape(_operand_array(x)._t, [int(d) for d in shape], caller()))


def permute_dims(x, /, axes):
    return Array(_tensord.permute(_operand_array(x)._t, [int(a) for a in axes], caller()))


def matrix_transpose(x, /):
    x = _operand_array(x)
    if x.ndim < 2:
        raise ValueError(f"matrix_transpose needs at least 2 dimensions, got {x.ndim}")
    return Array(_tensord.transpose(x._t, -2, -1, caller()))


def broadcast_to(x, /, shape):
    return Array(_tensord.expand(_operand_array(x)._t, [int(d) for d in shape], caller()))


def broadcast_arrays(*arrays):
    import numpy as np
    shape = np.broadcast_shapes(*(a.shape for a in arrays))
    loc = caller()
    return [Array(_tensord.expand(a._t, list(shape), loc)) for a in arrays]


broadcast_tensors = broadcast_arrays  # torch's name


def expand_dims(x, /, *, axis=0):
    return Array(_tensord.unsqueeze(_operand_array(x)._t, [int(axis)], caller()))


def squeeze(x, /, axis):
    return Array(_tensord.squeeze(_operand_array(x)._t, _axes(axis), caller()))


def flip(x, /, *, axis=None):
    return Array(_tensord.flip(_operand_array(x)._t, _axes(axis), caller()))


def concat(arrays, /, *, axis=0):
    loc = caller()
    ts = [_operand_array(a)._t for a in arrays]
    if axis is None:
        ts = [_tensord.reshape(t, [-1], loc) for t in ts]
        axis = 0
    return Array(_tensord.concat(ts, axis, loc))


def stack(arrays, /, *, axis=0):
    return Array(_tensord.stack([_operand_array(a)._t for a in arrays], axis, caller()))


def unstack(x, /, *, axis=0):
    loc = caller()
    x = _operand_array(x)
    n = x.shape[axis]
    return tuple(Array(_tensord.squeeze(_tensord.slice(x._t, axis, i, i + 1, 1, loc), [axis], loc))
                 for i in range(n))


def moveaxis(x, source, destination, /):
    x = _operand_array(x)
    src = [s % x.ndim for s in ((source,) if isinstance(source, int) else source)]
    dst = [d % x.ndim for d in ((destination,) if isinstance(destination, int) else destination)]
    order = [a for a in range(x.ndim) if a not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return Array(_tensord.permute(x._t, order, caller()))


def roll(x, /, shift, *, axis=None):
    loc = caller()
    x = _operand_array(x)
    t = x._t
    if axis is None:
        shape = list(x.shape)
        t = _tensord.reshape(t, [-1], loc)
        shifts, axes = [shift], [0]
    else:
        shifts = [shift] if isinstance(shift, int) else list(shift)
        axes = [axis] if isinstance(axis, int) else list(axis)
        if len(shifts) == 1 and len(axes) > 1:
            shifts = shifts * len(axes)
    for s, a in zip(shifts, axes):
        n = t.shape[a]
        if n == 0 or s % n == 0:
            continue
        s %= n
        t = _tensord.concat([_tensord.slice(t, a, n - s, None, 1, loc),
                             _tensord.slice(t, a, None, n - s, 1, loc)], a, loc)
    if axis is None:
        t = _tensord.reshape(t, shape, loc)
    return Array(t)


def take(x, indices, /, *, axis=None):
    loc = caller()
    t = _operand_array(x)._t
    if axis is None:
        if len(t.shape) != 1:
            raise ValueError("take without an axis needs a 1-D array")
        axis = 0
    return Array(_tensord.index_select(t, axis, _operand_array(indices)._t, loc))


# --- linear algebra and nn -------------------------------------------------------------------
def matmul(x1, x2, /):
    return Array(_tensord.matmul(_operand_array(x1)._t, _operand_array(x2)._t, caller()))


def tensordot(x1, x2, /, *, axes=2):
    """Contracts axes of x1 with axes of x2: one permute and reshape per side and a matmul."""
    loc = caller()
    a, b = _operand_array(x1), _operand_array(x2)
    if isinstance(axes, int):
        if axes < 0 or axes > builtins.min(a.ndim, b.ndim):
            raise ValueError(f"tensordot: cannot contract {axes} axes of {a.shape} and {b.shape}")
        a_axes, b_axes = list(range(a.ndim - axes, a.ndim)), list(range(axes))
    else:
        a_axes, b_axes = ([v] if isinstance(v, int) else list(v) for v in axes)
        a_axes = [v % a.ndim for v in a_axes] if a.ndim else a_axes
        b_axes = [v % b.ndim for v in b_axes] if b.ndim else b_axes
    contracted = [a.shape[i] for i in a_axes]
    if contracted != [b.shape[i] for i in b_axes]:
        raise ValueError(f"tensordot: axes {a_axes} of {a.shape} and {b_axes} of {b.shape} "
                         "differ in size")
    free_a = [i for i in range(a.ndim) if i not in a_axes]
    free_b = [i for i in range(b.ndim) if i not in b_axes]
    k = math.prod(contracted)
    lhs = _tensord.reshape(_tensord.permute(a._t, free_a + a_axes, loc),
                           [math.prod(a.shape[i] for i in free_a), k], loc)
    rhs = _tensord.reshape(_tensord.permute(b._t, b_axes + free_b, loc),
                           [k, math.prod(b.shape[i] for i in free_b)], loc)
    out = _tensord.matmul(lhs, rhs, loc)
    return Array(_tensord.reshape(out, [a.shape[i] for i in free_a] + [b.shape[i] for i in free_b],
                                  loc))


def vecdot(x1, x2, /, *, axis=-1):
    loc = caller()
    prod_ = _tensord.mul(_operand_array(x1)._t, _operand_array(x2)._t, loc)
    return Array(_tensord.sum(prod_, [axis], False, loc))


def softmax(x, /, axis=-1):
    return Array(_tensord.softmax(_operand_array(x)._t, axis, caller()))


def log_softmax(x, /, axis=-1):
    return Array(_tensord.log_softmax(_operand_array(x)._t, axis, caller()))


def gelu(x, /, approximate="none"):
    if approximate not in ("none", "tanh"):
        raise ValueError(f"gelu: approximate must be 'none' or 'tanh', got {approximate!r}")
    return Array(_tensord.gelu(_operand_array(x)._t, approximate == "tanh", caller()))


def layer_norm(x, /, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Normalizes over the trailing dims `normalized_shape` (an int or a tuple), as in PyTorch."""
    ndim = 1 if isinstance(normalized_shape, int) else len(normalized_shape)
    x = _operand_array(x)
    if isinstance(normalized_shape, int):
        normalized_shape = (normalized_shape,)
    if tuple(x.shape[x.ndim - ndim:]) != tuple(normalized_shape):
        raise ValueError(f"layer_norm: normalized_shape {tuple(normalized_shape)} is not the "
                         f"trailing shape of {x.shape}")
    w = None if weight is None else _operand_array(weight)._t
    b = None if bias is None else _operand_array(bias)._t
    return Array(_tensord.layer_norm(x._t, ndim, w, b, float(eps), caller()))


def result_type(*arrays_and_dtypes):
    return _dtypes.result_type(*(a.dtype if isinstance(a, Array) else _dtypes.to_dtype(a)
                                 for a in arrays_and_dtypes))


def can_cast(from_, to, /):
    f = from_.dtype if isinstance(from_, Array) else _dtypes.to_dtype(from_)
    return _dtypes.result_type(f, _dtypes.to_dtype(to)) is _dtypes.to_dtype(to)


def isdtype(dtype, kind):
    kinds = kind if isinstance(kind, tuple) else (kind,)
    for k in kinds:
        if isinstance(k, _dtypes.DType):
            if dtype is k:
                return True
        elif k == dtype.kind or (k == "numeric" and dtype.kind != "bool") \
                or (k == "integral" and _dtypes.is_integral(dtype)):
            return True
    return False


def sync(*arrays):
    """Evaluates every array given in one round trip (one `run` for all of them)."""
    if not arrays:
        return
    arrays = [_operand_array(a) for a in arrays]
    _session.session().sync([a._t for a in arrays], caller())



__all__ = [n for n in list(globals())
           if not n.startswith("_") and n not in ("builtins", "math", "Array")]
