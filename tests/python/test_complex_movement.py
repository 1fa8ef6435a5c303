"""Issue 4: complex arrays through the movement and indexing ops (pad, take, gather, tril, tile,
diagonal, trace, outer, kron...) against NumPy, through td's names and NumPy's dispatch."""
import numpy as np
import pytest

import tensord as td


def rand_complex(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)


def same(got, want):
    got = np.asarray(got)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    np.testing.assert_array_equal(got, want)


def close(got, want):
    got = np.asarray(got)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    tol = 2e-6 if want.dtype == np.complex64 else 1e-14
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_moves_against_numpy(dtype):
    a = rand_complex((3, 4), dtype, seed=1)
    a[0, 0] = complex(np.nan, -0.0)
    x = td.asarray(a)
    idx = np.array([[3, 0], [1, 1], [2, 3]])
    same(np.tril(x), np.tril(a))
    same(np.triu(x, 1), np.triu(a, 1))
    same(np.tile(x, (2, 1, 2)), np.tile(a, (2, 1, 2)))
    same(np.repeat(x, 2, axis=1), np.repeat(a, 2, axis=1))
    same(np.rot90(x), np.rot90(a))
    same(np.diagonal(x, 1), np.diagonal(a, 1))
    same(np.diag(td.asarray(a[1])), np.diag(a[1]))
    same(np.take_along_axis(x, td.asarray(idx), axis=1), np.take_along_axis(a, idx, axis=1))
    same(td.take(td.reshape(x, (-1,)), td.asarray([11, 0, 5])), a.reshape(-1)[[11, 0, 5]])
    same(td.take(x, td.asarray([2, 0]), axis=1), np.take(a, [2, 0], axis=1))
    same(x[td.asarray([2, 0, 2])], a[[2, 0, 2]])
    same(x.T[1:3, ::-1], a.T[1:3, ::-1])


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_fills_and_assignment(dtype):
    a = rand_complex((3, 4), dtype, seed=2)
    x = td.asarray(a)
    same(np.pad(x, ((0, 0), (1, 2))), np.pad(a, ((0, 0), (1, 2))))
    same(td.pad(x, ((1, 0), (0, 1)), constant_values=2.5),
         np.pad(a, ((1, 0), (0, 1)), constant_values=2.5))
    same(td.pad(x, 1, constant_values=1 - 3j), np.pad(a, 1, constant_values=1 - 3j))
    mask = np.array([True, False, False, True])
    same(td.masked_fill(x, td.asarray(mask), 1.5), np.where(mask, dtype(1.5), a))
    same(td.masked_fill(x, td.asarray(mask), 1 - 2j), np.where(mask, dtype(1 - 2j), a))
    b = a.copy()
    b[1:3, 2] = 7 + 1j
    y = td.asarray(a)
    y[1:3, 2] = 7 + 1j
    same(y, b)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_sums_and_products(dtype):
    a, b = rand_complex((4, 5), dtype, seed=3), rand_complex((2, 3), dtype, seed=4)
    x, y = td.asarray(a), td.asarray(b)
    close(np.trace(x), np.asarray(np.trace(a)))
    close(np.trace(x, 1), np.asarray(np.trace(a, 1)))
    close(np.outer(x[0], y[1]), np.outer(a[0], b[1]))
    close(np.kron(x, y), np.kron(a, b))
    r = np.arange(3.0)
    close(np.outer(x[0], td.asarray(r)), np.outer(a[0], r))  # float64 partner: complex128


def test_complex_index_or_mask_is_rejected():
    x = td.asarray(rand_complex((3,), np.complex64))
    with pytest.raises((TypeError, td.TensorError)):
        np.asarray(td.take(x, td.asarray(np.array([1j]))))
    with pytest.raises((TypeError, td.TensorError)):
        np.asarray(td.masked_fill(x, x, 1.0))
    np.testing.assert_array_equal(np.asarray(x + 0), np.asarray(x))  # the session still works


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_writes_and_nan_reductions(dtype):
    a = rand_complex((4, 3), dtype, seed=5)
    y = td.asarray(a)
    b = a.copy()
    y[td.asarray([2, 0])] = 1j
    b[[2, 0]] = 1j
    y[td.asarray([1, 1, 3]), td.asarray([0, 0, 2])] = td.asarray(np.array([5, 6, 7 + 1j], dtype))
    b[[1, 1, 3], [0, 0, 2]] = np.array([5, 6, 7 + 1j], dtype)
    y[td.asarray(a.real > 0.5)] = -2.5
    b[a.real > 0.5] = -2.5
    same(y, b)
    i = np.array([[0, 2, 1], [3, 3, 0]])
    close(td.scatter_add(td.asarray(a), 0, td.asarray(i), td.asarray(a[:2])),
          _scatter_add(a, i, a[:2]))
    n = a.copy()
    n[0, 1] = complex(np.nan, 1)
    n[2, 2] = complex(3, np.nan)
    close(np.nansum(td.asarray(n)), np.asarray(np.nansum(n)))
    close(np.nansum(td.asarray(n), axis=0), np.nansum(n, axis=0))
    close(np.nanmean(td.asarray(n), axis=1), np.nanmean(n, axis=1))
    close(np.cross(td.asarray(a), td.asarray(a[::-1])), np.cross(a, a[::-1]))


def _scatter_add(a, index, src):
    out = a.copy()
    for r in range(index.shape[0]):
        for c in range(index.shape[1]):
            out[index[r, c], c] += src[r, c]
    return out
