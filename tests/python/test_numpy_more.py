"""_numpy_more.py and NumPy's np.fft / np.linalg names added with it, against NumPy: through
td's names and through NumPy's dispatch (np.fliplr(x) runs in the daemon)."""
import numpy as np
import pytest

import tensord as td


def rand(shape, seed=0, dtype=np.float64):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def same(got, want):
    assert isinstance(got, td.Array), type(got)
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    np.testing.assert_array_equal(got, want)


def close(got, want, rtol=1e-12, atol=1e-12):
    assert isinstance(got, td.Array), type(got)
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


def test_aliases_and_flips():
    a = rand((3, 4), 1)
    i = np.arange(-6, 6, dtype=np.int32).reshape(3, 4)
    x, xi = td.asarray(a), td.asarray(i)
    same(np.fliplr(x), np.fliplr(a))
    same(np.flipud(x), np.flipud(a))
    same(td.row_stack([x, x]), np.vstack([a, a]))
    same(td.diagflat(x[:2, :2], 1), np.diagflat(a[:2, :2], 1))
    same(np.invert(xi), np.invert(i))
    same(td.bitwise_not(xi), np.bitwise_not(i))
    same(np.left_shift(xi, 2), np.left_shift(i, 2))
    same(np.right_shift(xi, 1), np.right_shift(i, 1))
    close(td.product(x, axis=0), np.prod(a, axis=0))
    close(td.cumproduct(x), np.cumprod(a))
    close(td.round_(x, 2), np.round(a, 2))
    close(np.sinc(x), np.sinc(a))
    close(np.i0(x), np.i0(a), rtol=1e-10)
    with pytest.raises(ValueError, match="2-d"):
        td.fliplr(x[0])


def test_modf_divmod_spacing():
    a = np.array([-3.0, -2.5, -0.0, 0.0, 0.75, np.inf, -np.inf, np.nan, 1e300])
    x = td.asarray(a)
    for got, want in zip(np.modf(x), np.modf(a)):
        same(got, want)
        np.testing.assert_array_equal(np.signbit(np.asarray(got)), np.signbit(want))
    for got, want in zip(np.modf(td.asarray(np.array([3, -4]))), np.modf(np.array([3, -4]))):
        same(got, want)  # integers give float64
    i, j = np.array([7, -7, 7, -7]), np.array([2, 2, -2, -2])
    for got, want in zip(np.divmod(td.asarray(i), td.asarray(j)), np.divmod(i, j)):
        same(got, want)
    s = np.array([1.0, -1.0, 0.0, -0.0, 1e-310, 3.5e38, np.inf, np.nan])
    same(np.spacing(td.asarray(s)), np.spacing(s))
    s32 = s[[0, 1, 2, 3, 7]].astype(np.float32)
    same(np.spacing(td.asarray(s32)), np.spacing(s32))


def test_cumulative_and_differences():
    a = rand((3, 4), 2)
    a[1, 2] = np.nan
    x = td.asarray(a)
    close(np.nancumprod(x), np.nancumprod(a))
    close(np.nancumprod(x, axis=1), np.nancumprod(a, axis=1))
    close(np.ediff1d(x), np.ediff1d(a))
    close(np.ediff1d(x, to_begin=[9, 8], to_end=-1.5), np.ediff1d(a, to_begin=[9, 8], to_end=-1.5))
    same(np.ediff1d(td.asarray(np.array([5]))), np.ediff1d(np.array([5])))
    p = np.cumsum(rand(40, 3) * 2.5)
    close(np.unwrap(td.asarray(p)), np.unwrap(p))
    close(np.unwrap(td.asarray(p), discont=4.0), np.unwrap(p, discont=4.0))
    q = np.stack([p, -p]) * 40
    close(np.unwrap(td.asarray(q), period=360, axis=1), np.unwrap(q, period=360, axis=1),
          rtol=1e-12, atol=1e-9)


def test_partitions_selections_and_writes():
    a = rand((4, 6), 4)
    x = td.asarray(a)
    part = np.asarray(np.partition(x, 2, axis=1))
    np.testing.assert_array_equal(part[:, 2], np.partition(a, 2, axis=1)[:, 2])
    assert (part[:, :2] <= part[:, 2:3]).all() and (part[:, 3:] >= part[:, 2:3]).all()
    idx = np.asarray(np.argpartition(x, 3, axis=None))
    assert np.take(a.ravel(), idx)[3] == np.partition(a, 3, axis=None)[3]
    with pytest.raises(ValueError, match="out of bounds"):
        np.partition(x, 6)
    same(np.delete(x, 1, axis=0), np.delete(a, 1, axis=0))
    same(np.delete(x, [0, -1], axis=1), np.delete(a, [0, -1], axis=1))
    same(np.delete(x, slice(1, None, 2), axis=1), np.delete(a, slice(1, None, 2), axis=1))
    same(np.delete(x, [3, 7]), np.delete(a, [3, 7]))
    same(np.delete(x, td.asarray([True, False, False, True]), axis=0),
         np.delete(a, [True, False, False, True], axis=0))
    same(np.compress([False, True, True], x, axis=1), np.compress([False, True, True], a, axis=1))
    same(np.compress(td.asarray([True, False, True]), x), np.compress([True, False, True], a))
    with pytest.raises(IndexError):
        np.compress([True] * 5, x, axis=0)
    same(np.extract(x > 0, x), np.extract(a > 0, a))
    same(np.extract([1, 0, 1], x), np.extract([1, 0, 1], a))
    b = a.copy()
    np.put_along_axis(b, np.array([[0], [5], [2], [2]]), -1.0, axis=1)
    y = td.asarray(a)
    assert np.put_along_axis(y, td.asarray(np.array([[0], [5], [2], [2]])), -1.0, axis=1) is None
    same(y, b)
    np.put_along_axis(b, np.array([0, 23]), np.array([7.0, 8.0]), axis=None)
    td.put_along_axis(y, np.array([0, 23]), np.array([7.0, 8.0]), axis=None)
    same(y, b)
    c = a.copy()  # a NumPy array written with tensord values: NumPy writes it
    np.put_along_axis(c, np.array([[1]] * 4), td.asarray(np.full((4, 1), 3.0)), axis=1)
    assert (c[:, 1] == 3.0).all()


@pytest.mark.parametrize("n,m", [(7, 3), (6, 4), (3, 7), (4, 6), (1, 1), (2, 5)])
def test_correlate_convolve(n, m):
    a, v = rand(n, n), rand(m, m + 10)
    for mode in ("full", "same", "valid"):
        close(np.correlate(td.asarray(a), td.asarray(v), mode), np.correlate(a, v, mode))
        close(np.convolve(td.asarray(a), td.asarray(v), mode), np.convolve(a, v, mode))
    ca = a + 1j * rand(n, 3)
    cv = v - 0.5j * rand(m, 4)
    close(np.correlate(td.asarray(ca), td.asarray(cv), "full"), np.correlate(ca, cv, "full"))
    close(np.convolve(td.asarray(ca), td.asarray(v), "same"), np.convolve(ca, v, "same"))
    ia, iv = np.arange(n) - 2, np.arange(m) * 3
    same(np.convolve(td.asarray(ia), td.asarray(iv)), np.convolve(ia, iv))
    fa, fv = a.astype(np.float32), v.astype(np.float32)
    close(np.correlate(td.asarray(fa), td.asarray(fv), "same"), np.correlate(fa, fv, "same"),
          rtol=1e-5, atol=1e-5)


def test_correlate_errors():
    x = td.asarray(rand(4))
    with pytest.raises(ValueError, match="empty"):
        td.correlate(x, td.asarray(np.zeros(0)))
    with pytest.raises(ValueError, match="mode"):
        td.convolve(x, x, "middle")
    with pytest.raises(ValueError, match="1-d"):
        td.correlate(td.reshape(x, (2, 2)), x)


def test_fft_and_linalg_names():
    a = rand((4, 6), 5)
    x = td.asarray(a)
    close(np.fft.rfft2(x), np.fft.rfft2(a), rtol=1e-12, atol=1e-12)
    close(np.fft.irfft2(np.fft.rfft2(x), s=(4, 6)), np.fft.irfft2(np.fft.rfft2(a), s=(4, 6)))
    m = rand((3, 3), 6) + 3 * np.eye(3)
    for p in (None, 2, -2, "fro", "nuc", 1, -1, np.inf, -np.inf):
        close(np.linalg.cond(td.asarray(m), p), np.asarray(np.linalg.cond(m, p)), rtol=1e-10)
    z = np.zeros((2, 2))
    close(np.linalg.cond(td.asarray(z)), np.asarray(np.linalg.cond(z)))
    t = rand((2, 3, 6), 7) + np.eye(6).reshape(2, 3, 6)
    close(np.linalg.tensorinv(td.asarray(t), ind=2), np.linalg.tensorinv(t, ind=2), rtol=1e-10,
          atol=1e-10)
    b = rand((2, 3), 8)
    close(np.linalg.tensorsolve(td.asarray(t), td.asarray(b)), np.linalg.tensorsolve(t, b),
          rtol=1e-10, atol=1e-10)
    t6 = np.moveaxis(t, 2, 0)  # (6, 2, 3): axes=(0,) moves its first axis back to the end
    close(np.linalg.tensorsolve(td.asarray(t6), td.asarray(b), axes=(0,)),
          np.linalg.tensorsolve(t6, b, axes=(0,)), rtol=1e-10, atol=1e-10)
    with pytest.raises(np.linalg.LinAlgError):
        td.linalg.tensorsolve(td.asarray(rand((2, 3, 5))), td.asarray(b))
