"""NumPy's ndarray methods on td.Array (x.sum(), x.reshape(2, -1), x.astype(...)), as JAX and
CuPy arrays have them: code written against NumPy arrays runs unchanged. Each records the same
ops as the namespace function it names; arguments follow NumPy's spelling (`ddof`, varargs
shapes and axes, `axis=None` meaning every axis). Methods that mutate in NumPy (sort, fill,
resize) are left out: a td.Array is a value, and a rebinding `x[...] = v` is the only update."""
import builtins
import math


def _td():
    import tensord  # the namespace imports this module: bind at call time
    return tensord


def _shape_args(args):
    """reshape(2, 3) and reshape((2, 3)) alike, as NumPy takes both (NumPy integers too)."""
    if len(args) == 1 and not hasattr(args[0], "__index__"):
        return tuple(args[0])
    return tuple(args)


def _in_dtype(x, dtype):
    """NumPy's `dtype=` of mean, std and var: the dtype the reduction computes in."""
    return x if dtype is None else _td().astype(x, dtype)


class ArrayMethods:
    __slots__ = ()

    # --- shape ------------------------------------------------------------------------------
    def reshape(self, *shape, copy=None):
        return _td().reshape(self, _shape_args(shape), copy=copy)

    def transpose(self, *axes):
        """No axes reverses them all, as NumPy's."""
        axes = _shape_args(axes) if axes and axes != (None,) else tuple(range(self.ndim))[::-1]
        return _td().permute_dims(self, axes)

    def swapaxes(self, axis1, axis2):
        axes = list(range(self.ndim))
        axes[axis1], axes[axis2] = axes[axis2], axes[axis1]
        return _td().permute_dims(self, tuple(axes))

    def flatten(self):
        return _td().reshape(self, (-1,))

    def ravel(self):
        return _td().reshape(self, (-1,))

    def squeeze(self, axis=None):
        """No axis drops every axis of size 1, as NumPy's."""
        if axis is None:
            axis = tuple(d for d, n in enumerate(self.shape) if n == 1)
        return _td().squeeze(self, axis)

    def astype(self, dtype, copy=True):
        return _td().astype(self, dtype, copy=copy)

    def copy(self):
        """A new handle to the same value: arrays are values, so it cannot see later updates."""
        return type(self)(self._t)

    # --- reductions -------------------------------------------------------------------------
    def sum(self, axis=None, dtype=None, keepdims=False):
        return _td().sum(self, axis=axis, dtype=dtype, keepdims=keepdims)

    def prod(self, axis=None, dtype=None, keepdims=False):
        return _td().prod(self, axis=axis, dtype=dtype, keepdims=keepdims)

    def mean(self, axis=None, dtype=None, keepdims=False):
        return _td().mean(_in_dtype(self, dtype), axis=axis, keepdims=keepdims)

    def std(self, axis=None, dtype=None, ddof=0, keepdims=False):
        return _td().std(_in_dtype(self, dtype), axis=axis, correction=ddof, keepdims=keepdims)

    def var(self, axis=None, dtype=None, ddof=0, keepdims=False):
        return _td().var(_in_dtype(self, dtype), axis=axis, correction=ddof, keepdims=keepdims)

    def max(self, axis=None, keepdims=False):
        return _td().max(self, axis=axis, keepdims=keepdims)

    def min(self, axis=None, keepdims=False):
        return _td().min(self, axis=axis, keepdims=keepdims)

    def argmax(self, axis=None, keepdims=False):
        return _td().argmax(self, axis=axis, keepdims=keepdims)

    def argmin(self, axis=None, keepdims=False):
        return _td().argmin(self, axis=axis, keepdims=keepdims)

    def all(self, axis=None, keepdims=False):
        return _td().all(self, axis=axis, keepdims=keepdims)

    def any(self, axis=None, keepdims=False):
        return _td().any(self, axis=axis, keepdims=keepdims)

    def cumsum(self, axis=None, dtype=None):
        """No axis: over the flattened array, as NumPy's."""
        x = self.ravel() if axis is None else self
        return _td().cumulative_sum(x, axis=0 if axis is None else axis, dtype=dtype)

    def cumprod(self, axis=None, dtype=None):
        x = self.ravel() if axis is None else self
        return _td().cumulative_prod(x, axis=0 if axis is None else axis, dtype=dtype)

    def trace(self, offset=0, axis1=0, axis2=1, dtype=None):
        d = _td().diagonal(self, offset=offset, axis1=axis1, axis2=axis2)
        return _td().sum(d, axis=-1, dtype=dtype)

    # --- elementwise ------------------------------------------------------------------------
    def clip(self, min=None, max=None):
        return _td().clip(self, min, max)

    def round(self, decimals=0):
        """Half to even; with decimals, NumPy's own scale, round and unscale."""
        td = _td()
        if decimals == 0:
            return td.round(self)
        if decimals > 0 and not td.isdtype(self.dtype, ("real floating", "complex floating")):
            return self  # integers have no digits after the point
        scale = math.pow(10.0, decimals)
        return td.round(self * scale) / scale

    def conj(self):
        return _td().conj(self)

    conjugate = conj

    @property
    def real(self):
        return _td().real(self)

    @property
    def imag(self):
        return _td().imag(self)

    # --- products, selection ------------------------------------------------------------------
    def dot(self, other):
        """NumPy's dot: a product for 0-d operands, else a sum over self's last axis and
        other's second-to-last (its only axis when 1-D)."""
        td = _td()
        other = other if hasattr(other, "_t") else td.asarray(other)
        if self.ndim == 0 or other.ndim == 0:
            return self * other
        return td.tensordot(self, other,
                            axes=([self.ndim - 1], [builtins.max(other.ndim - 2, 0)]))

    def diagonal(self, offset=0, axis1=0, axis2=1):
        return _td().diagonal(self, offset=offset, axis1=axis1, axis2=axis2)

    def argsort(self, axis=-1):
        return _td().argsort(self, axis=axis)

    def nonzero(self):
        return _td().nonzero(self)

    def repeat(self, repeats, axis=None):
        return _td().repeat(self, repeats, axis=axis)

    def take(self, indices, axis=None):
        """No axis: from the flattened array, as NumPy's."""
        if axis is None:
            return _td().take(self.ravel(), indices, axis=0)
        return _td().take(self, indices, axis=axis)

    # --- values -----------------------------------------------------------------------------
    def tolist(self):
        """A sync point, as numpy() is."""
        return self.numpy().tolist()
