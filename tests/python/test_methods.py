"""NumPy's ndarray methods on td.Array give NumPy's results (client/python/tensord/_methods.py)."""
import numpy as np
import pytest

import tensord as td
from test_functions import check

A = (np.arange(24, dtype=np.float32).reshape(2, 3, 4) - 7.5) / 3


def both(a=A):
    return td.asarray(a), a


@pytest.mark.parametrize("call", [
    lambda x: x.reshape(4, 6), lambda x: x.reshape((3, -1)), lambda x: x.reshape(-1),
    lambda x: x.reshape(np.int64(24)), lambda x: x.transpose(np.int32(2), 0, 1),
    lambda x: x.transpose(), lambda x: x.transpose(1, 0, 2), lambda x: x.transpose((2, 0, 1)),
    lambda x: x.swapaxes(0, 2), lambda x: x.swapaxes(-1, 1), lambda x: x.flatten(),
    lambda x: x.ravel(), lambda x: x.reshape(1, 24, 1).squeeze(),
    lambda x: x.reshape(1, 24, 1).squeeze(axis=0), lambda x: x.astype(np.int32),
    lambda x: x.copy(), lambda x: x.diagonal(), lambda x: x.diagonal(1, 1, 2),
])
def test_shape_methods(call):
    x, a = both()
    check(call(x), call(a))


@pytest.mark.parametrize("name", ["sum", "prod", "mean", "std", "var", "max", "min", "argmax",
                                  "argmin", "all", "any"])
@pytest.mark.parametrize("axis", [None, 0, -1, (0, 2)])
def test_reductions(name, axis):
    x, a = both()
    if name in ("argmax", "argmin") and isinstance(axis, tuple):
        return  # NumPy takes one axis there
    check(getattr(x, name)(axis=axis), getattr(a, name)(axis=axis), rtol=1e-5, atol=1e-5)
    check(getattr(x, name)(axis=axis, keepdims=True), getattr(a, name)(axis=axis, keepdims=True),
          rtol=1e-5, atol=1e-5)


def test_reduction_options():
    x, a = both()
    check(x.std(axis=1, ddof=1), a.std(axis=1, ddof=1))
    check(x.var(ddof=2), a.var(ddof=2))
    check(x.mean(dtype=np.float64), a.mean(dtype=np.float64))
    i, ai = both(np.arange(1, 7, dtype=np.int32).reshape(2, 3))
    check(i.sum(dtype=np.int64), ai.sum(dtype=np.int64))
    check(i.prod(axis=0), ai.prod(axis=0))
    check(x.trace(), a.trace())
    check(x.trace(offset=1, axis1=1, axis2=2), a.trace(offset=1, axis1=1, axis2=2))


def test_scans():
    x, a = both()
    check(x.cumsum(), a.cumsum())
    check(x.cumsum(axis=1), a.cumsum(axis=1))
    check(x.cumprod(axis=-1), a.cumprod(axis=-1), rtol=1e-5)


def test_elementwise_methods():
    x, a = both()
    check(x.clip(-1, 1), a.clip(-1, 1))
    check(x.clip(max=0.5), a.clip(max=0.5))
    check(x.round(), a.round())
    check(x.round(1), a.round(1))
    i, ai = both(np.arange(-3, 3, dtype=np.int64))
    check(i.round(2), ai.round(2))
    c, ac = both(np.array([1 + 2j, -3j], dtype=np.complex64))
    check(c.conj(), ac.conj())
    check(c.conjugate(), ac.conjugate())
    check(c.real, ac.real)
    check(c.imag, ac.imag)


def test_dot_matches_numpy():
    x, a = both()
    v = np.linspace(-1, 1, 4, dtype=np.float32)
    m = np.arange(12, dtype=np.float32).reshape(4, 3) / 7
    check(x.dot(v), a.dot(v), rtol=1e-5)
    check(x.dot(m), a.dot(m), rtol=1e-5)
    check(x.dot(td.asarray(m)), a.dot(m), rtol=1e-5)
    b = np.arange(24, dtype=np.float32).reshape(3, 4, 2) / 5
    check(x.dot(b), a.dot(b), rtol=1e-5)  # N-D: over a's last and b's second-to-last axis
    check(x.dot(np.float32(2)), a.dot(np.float32(2)))


def test_selection_methods():
    x, a = both()
    check(x.argsort(), a.argsort(kind="stable"))
    check(x.argsort(axis=0), a.argsort(axis=0, kind="stable"))
    check(x.take([0, 5, 23]), a.take([0, 5, 23]))
    check(x.take([2, 0], axis=1), a.take([2, 0], axis=1))
    check(x.repeat(2, axis=0), a.repeat(2, axis=0))
    m, am = both(np.array([[0, 1], [2, 0]], dtype=np.int32))
    for got, want in zip(m.nonzero(), am.nonzero()):
        check(got, want)
    assert x.tolist() == a.tolist()


def test_methods_record_lazily_and_keep_values():
    x, a = both()
    y = x.copy()
    y[0] = 0  # rebinds y only: x keeps its value
    check(x, a)
    assert y.numpy()[0].sum() == 0


def test_method_errors_name_the_callers_line():
    x, _ = both()
    with pytest.raises(ValueError) as e:
        x.reshape(5, 5)
    assert "test_methods.py" in str(e.value)
    with pytest.raises((ValueError, IndexError)):
        x.swapaxes(0, 3)
