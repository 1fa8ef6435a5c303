"""Issue 4: complex dtypes and td.fft against NumPy (np.fft, complex arithmetic), NumPy interop
both ways, and complex inputs to ops not defined on them (an error, never a crash)."""
import numpy as np
import pytest

import tensord as td


def rand_complex(shape, dtype=np.complex128, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)


def tol(dtype):
    return dict(rtol=2e-5, atol=2e-5) if np.dtype(dtype) in (np.complex64, np.float32) else \
        dict(rtol=1e-11, atol=1e-11)


def check(got, want, dtype=np.complex128):
    got = np.asarray(got)
    assert got.dtype == np.asarray(want).dtype, (got.dtype, np.asarray(want).dtype)
    np.testing.assert_allclose(got, want, equal_nan=True, **tol(dtype))


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_numpy_round_trip_and_dtype_objects(dtype):
    a = rand_complex((3, 5), dtype)
    x = td.asarray(a)
    assert x.dtype == (td.complex64 if dtype == np.complex64 else td.complex128)
    np.testing.assert_array_equal(x.numpy(), a)
    np.testing.assert_array_equal(np.asarray(x[1:, ::2]), a[1:, ::2])
    assert td.asarray(a[0, 0]).item() == complex(a[0, 0])
    f = td.finfo(x.dtype)
    assert f.eps == float(np.finfo(dtype).eps)
    assert f.dtype == (td.float32 if dtype == np.complex64 else td.float64)


def test_large_complex_transfer():
    a = rand_complex((1024, 700), np.complex128, seed=3)  # 11 MiB: the shared-memory path
    np.testing.assert_array_equal(td.asarray(a).numpy(), a)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_arithmetic_against_numpy(dtype):
    a, b = rand_complex((4, 6), dtype, 1), rand_complex((6,), dtype, 2)
    x, y = td.asarray(a), td.asarray(b)
    check(x + y, a + b, dtype)
    check(x - y, a - b, dtype)
    check(x * y, a * b, dtype)
    check(x / y, a / b, dtype)
    check(-x, -a, dtype)
    check(td.exp(x), np.exp(a), dtype)
    check(td.log(x), np.log(a), dtype)
    check(td.sqrt(x), np.sqrt(a), dtype)
    check(td.abs(x), np.abs(a), dtype)
    check(td.real(x), a.real, dtype)
    check(td.imag(x), a.imag, dtype)
    check(td.conj(x), np.conj(a), dtype)
    check(td.angle(x), np.angle(a), dtype)
    np.testing.assert_array_equal(np.asarray(x == x), np.ones((4, 6), bool))
    np.testing.assert_array_equal(np.asarray(x != y), a != b)
    check(td.sum(x, axis=0), a.sum(axis=0), dtype)
    check(td.prod(x[:2], axis=1), a[:2].prod(axis=1), dtype)
    check(td.mean(x), a.mean(), dtype)
    check(x @ td.asarray(a.T.copy()), a @ a.T, dtype)
    # conj views: folded into matmul, copied for other consumers, materialised when fetched.
    check(td.conj(x) @ td.asarray(a.T.copy()), np.conj(a) @ a.T, dtype)
    check(x @ td.conj(x).T, a @ np.conj(a).T, dtype)
    check(td.conj(x) + y, np.conj(a) + b, dtype)
    check(td.conj(td.conj(x)), a, dtype)
    check(td.conj(x)[1:, ::2], np.conj(a)[1:, ::2], dtype)
    check(td.where(td.asarray(a.real > 0), x, 0.0), np.where(a.real > 0, a, 0), dtype)


def test_promotion_and_scalars():
    a = rand_complex((3,), np.complex64)
    x = td.asarray(a)
    assert (x * 2.0).dtype == td.complex64
    assert (x * 1j).dtype == td.complex64  # a Python complex is a weak scalar
    check(x * 1j, a * np.complex64(1j), np.complex64)
    assert (x + td.asarray(np.ones(3))).dtype == td.complex128  # float64 widens
    assert (x + td.asarray(np.ones(3, np.int32))).dtype == td.complex64
    f = td.asarray(np.arange(3.0))
    assert (f * 1j).dtype == td.complex128
    z = td.complex(td.asarray(np.float32([1, 2])), td.asarray(np.float32([3, 4])))
    np.testing.assert_array_equal(z.numpy(), np.complex64([1 + 3j, 2 + 4j]))
    check(td.astype(x, td.float32), a.real.astype(np.float32), np.float32)
    check(td.astype(f, td.complex64), np.arange(3.0).astype(np.complex64), np.complex64)
    assert td.real(f) is f and td.conj(f) is f


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_functions_against_numpy(dtype):
    """NumPy's complex ufuncs: the same principal branches, both sides of each cut."""
    a = rand_complex((5, 6), dtype, 4) * 1.5
    a[0, :4] = [2, -2, 2j, -2j]  # on the branch cuts of the inverse functions (+0 parts)
    a[1, :3] = [1e-6 + 2e-6j, 0.999 + 0.001j, 20 - 3j]
    x = td.asarray(a)
    for name in ["sin", "cos", "tan", "sinh", "cosh", "tanh", "exp2", "expm1", "log2", "log10",
                 "log1p", "square", "reciprocal"]:
        check(getattr(td, name)(x), getattr(np, name)(a), dtype)
    for name, ufunc in [("asin", np.arcsin), ("acos", np.arccos), ("atan", np.arctan),
                        ("asinh", np.arcsinh), ("acosh", np.arccosh), ("atanh", np.arctanh)]:
        check(getattr(td, name)(x), ufunc(a), dtype)
    check(td.rsqrt(x), 1 / np.sqrt(a), dtype)
    check(td.sigmoid(x), 1 / (1 + np.exp(-a)), dtype)
    check(td.sign(x), a / np.abs(a), dtype)  # NumPy 2's sign, torch.sgn (NumPy 1: sign(re))
    assert td.sign(td.asarray(np.zeros(2, dtype))).numpy().tolist() == [0, 0]


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_power_against_numpy(dtype):
    a, b = rand_complex((4, 6), dtype, 5), rand_complex((6,), dtype, 6)
    x, y = td.asarray(a), td.asarray(b)
    check(x ** y, a ** b, dtype)
    check(x ** 2, a ** 2, dtype)  # z * z
    check(x ** 3, a ** 3, dtype)
    check(x ** -1, a ** -1, dtype)
    check(x ** 0.5, a ** 0.5, dtype)
    check(2.0 ** x, 2.0 ** a, dtype)
    e = np.float64([0, 1, 2, 7, -2, 2.5])
    check(td.pow(x, td.asarray(e)), a ** e, np.complex128)
    z = np.array([0, 0, 0, 1 + 1j], dtype)
    w = np.array([2, 0, 1j, 0], dtype)  # 0 ** 2 = 0, z ** 0 = 1, 0 ** 1j is NaN (NumPy)
    with np.errstate(invalid="ignore"):
        check(td.asarray(z) ** td.asarray(w), z ** w, dtype)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_reductions_against_numpy(dtype):
    a = rand_complex((5, 7), dtype, 7)
    x = td.asarray(a)
    check(td.var(x), np.var(a), np.float32 if dtype == np.complex64 else np.float64)
    real = np.float32 if dtype == np.complex64 else np.float64
    check(td.var(x, axis=0, correction=1), np.var(a, axis=0, ddof=1), real)
    check(td.std(x, axis=1, keepdims=True), np.std(a, axis=1, keepdims=True), real)
    check(x.std(ddof=1), a.std(ddof=1), real)
    for ord in [2, 1, np.inf, -np.inf, 0, 3]:
        check(td.linalg.vector_norm(x, ord=ord, axis=1), np.linalg.norm(a, ord=ord, axis=1), real)
    check(td.linalg.vector_norm(x), np.linalg.norm(a.ravel()), real)
    check(td.cumsum(x, axis=1), np.cumsum(a, axis=1), dtype)
    check(x.cumsum(), a.cumsum(), dtype)
    check(td.cumprod(x, axis=0), np.cumprod(a, axis=0), dtype)
    check(np.cumprod(x.T, axis=1), np.cumprod(a.T, axis=1), dtype)
    b = a.copy()
    b[1, 2] = complex(np.nan, 1)
    check(np.nancumprod(td.asarray(b)), np.nancumprod(b), dtype)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_large_sums(dtype):
    """Sums over trailing axes of contiguous arrays take the daemon's fast path: long runs split
    among its threads, many short runs shared out."""
    a = rand_complex((3, 200, 300), dtype, 8)
    x = td.asarray(a)
    tol = dict(rtol=1e-5, atol=1e-3) if dtype == np.complex64 else dict(rtol=1e-12, atol=1e-9)
    np.testing.assert_allclose(np.asarray(td.sum(x)), a.astype(np.complex128).sum(), **tol)
    np.testing.assert_allclose(np.asarray(td.sum(x, axis=(1, 2))),
                               a.astype(np.complex128).sum(axis=(1, 2)), **tol)
    np.testing.assert_allclose(np.asarray(td.sum(x, axis=-1)), a.sum(axis=-1), **tol)
    np.testing.assert_allclose(np.asarray(td.sum(x, axis=0)), a.sum(axis=0), **tol)
    np.testing.assert_allclose(np.asarray(td.sum(x[:, ::2], axis=-1)), a[:, ::2].sum(axis=-1),
                               **tol)


def test_complex_predicates():
    inf, nan = np.inf, np.nan
    a = np.array([1 + 1j, complex(inf, 0), complex(0, -inf), complex(nan, 1), complex(1, nan),
                  complex(nan, inf), 0j], np.complex64)
    x = td.asarray(a)
    for name in ["isnan", "isinf", "isfinite"]:
        np.testing.assert_array_equal(np.asarray(getattr(td, name)(x)), getattr(np, name)(a))


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("n", [1, 2, 5, 7, 8, 16, 17, 100])
def test_fft_1d(dtype, n):
    a = rand_complex((3, n), dtype, n)
    x = td.asarray(a)
    for norm in ["backward", "ortho", "forward"]:
        check(td.fft.fft(x, norm=norm), np.fft.fft(a, norm=norm).astype(dtype), dtype)
        check(td.fft.ifft(x, norm=norm), np.fft.ifft(a, norm=norm).astype(dtype), dtype)
    check(td.fft.fft(x, n=n + 3), np.fft.fft(a, n=n + 3).astype(dtype), dtype)
    check(td.fft.ifft(x, n=max(1, n - 1), axis=-1),
          np.fft.ifft(a, n=max(1, n - 1)).astype(dtype), dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [1, 2, 5, 8, 9, 31])
def test_rfft_irfft_hfft(dtype, n):
    cdt = np.complex64 if dtype == np.float32 else np.complex128
    a = np.random.default_rng(n).standard_normal((2, n)).astype(dtype)
    x = td.asarray(a)
    for norm in ["backward", "ortho", "forward"]:
        check(td.fft.rfft(x, norm=norm), np.fft.rfft(a, norm=norm).astype(cdt), cdt)
        check(td.fft.ihfft(x, norm=norm), np.fft.ihfft(a, norm=norm).astype(cdt), cdt)
    spec = np.fft.rfft(a).astype(cdt)
    s = td.asarray(spec)
    if spec.shape[-1] > 1:
        check(td.fft.irfft(s), np.fft.irfft(spec).astype(dtype), dtype)
        check(td.fft.hfft(s, norm="ortho"), np.fft.hfft(spec, norm="ortho").astype(dtype), dtype)
    check(td.fft.irfft(s, n=n), np.fft.irfft(spec, n=n).astype(dtype), dtype)
    check(td.fft.fft(x), np.fft.fft(a).astype(cdt), cdt)  # a real input becomes complex


def test_fftn_family():
    a = rand_complex((4, 5, 6), np.complex128, 7)
    x = td.asarray(a)
    check(td.fft.fft2(x), np.fft.fft2(a))
    check(td.fft.ifft2(x, s=(3, 8)), np.fft.ifft2(a, s=(3, 8)))
    check(td.fft.fftn(x), np.fft.fftn(a))
    check(td.fft.fftn(x, axes=(0, 2), norm="ortho"), np.fft.fftn(a, axes=(0, 2), norm="ortho"))
    check(td.fft.ifftn(x, s=(2, 7), axes=(2, 0)), np.fft.ifftn(a, s=(2, 7), axes=(2, 0)))
    r = a.real.copy()
    check(td.fft.rfftn(td.asarray(r)), np.fft.rfftn(r))
    check(td.fft.rfftn(td.asarray(r), s=(4, 9), axes=(0, 2)), np.fft.rfftn(r, s=(4, 9), axes=(0, 2)))
    spec = np.fft.rfftn(r)
    check(td.fft.irfftn(td.asarray(spec), s=r.shape), np.fft.irfftn(spec, s=r.shape))
    check(td.fft.irfftn(td.asarray(a)), np.fft.irfftn(a))  # not Hermitian: numpy's definition
    check(td.fft.fft(x[:, 1:, ::2], axis=1), np.fft.fft(a[:, 1:, ::2], axis=1))  # strided view


def test_fft_edge_cases():
    e = np.zeros((0, 4), np.complex64)
    assert td.fft.fft(td.asarray(e)).shape == (0, 4)
    check(td.fft.fft(td.asarray(np.zeros(0, np.complex128)), n=4), np.zeros(4, np.complex128))
    nan = np.array([1, np.nan, 2, 3], np.complex128)
    got = np.asarray(td.fft.fft(td.asarray(nan)))
    assert np.isnan(got).all()
    with pytest.raises(ValueError):
        td.fft.fft(td.asarray(np.zeros(0, np.complex64)))
    with pytest.raises(ValueError):
        td.fft.fft(td.asarray(np.ones(4, np.complex64)), norm="sideways")
    with pytest.raises(TypeError):
        td.fft.rfft(td.asarray(np.ones(4, np.complex64)))
    with pytest.raises(TypeError):
        td.fft.fft(td.asarray(np.arange(4)))


def test_freq_and_shift():
    for n in [1, 2, 5, 8]:
        np.testing.assert_allclose(np.asarray(td.fft.fftfreq(n, d=0.5)),
                                   np.fft.fftfreq(n, d=0.5).astype(np.float32), rtol=1e-6)
        np.testing.assert_allclose(np.asarray(td.fft.rfftfreq(n, dtype=td.float64)),
                                   np.fft.rfftfreq(n), rtol=1e-12)
    a = rand_complex((4, 5), np.complex64, 9)
    x = td.asarray(a)
    np.testing.assert_array_equal(np.asarray(td.fft.fftshift(x)), np.fft.fftshift(a))
    np.testing.assert_array_equal(np.asarray(td.fft.ifftshift(x)), np.fft.ifftshift(a))
    np.testing.assert_array_equal(np.asarray(td.fft.fftshift(x, axes=1)),
                                  np.fft.fftshift(a, axes=1))
    np.testing.assert_array_equal(np.asarray(td.fft.ifftshift(td.fft.fftshift(x))), a)


def _calls(x):
    """Namespace functions called with complex inputs, each expected to fail cleanly."""
    return {
        "erf": lambda: td.erf(x), "floor": lambda: td.floor(x),
        "max": lambda: td.max(x), "argmax": lambda: td.argmax(x), "sort-ish less": lambda: x < x,
        "maximum": lambda: td.maximum(x, x), "cummax": lambda: td.cummax(x, 0),
        "softmax": lambda: td.softmax(x, axis=-1), "relu": lambda: td.relu(x),
        "nanmax": lambda: td.nanmax(x), "logsumexp": lambda: td.logsumexp(x),
        "signbit": lambda: td.signbit(x), "sort": lambda: td.sort(x),
        "searchsorted": lambda: td.searchsorted(x[0], x[0]),
        "clip": lambda: td.clip(x, 0, 1), "atan2": lambda: td.atan2(x, x),
        "rfft": lambda: td.fft.rfft(x),
    }


def test_complex_inputs_fail_cleanly_on_real_only_ops():
    x = td.asarray(rand_complex((2, 3), np.complex64))
    for name, call in _calls(x).items():
        with pytest.raises((TypeError, ValueError, NotImplementedError, td.TensorError)) as info:
            np.asarray(call())
        assert "complex" in str(info.value), (name, str(info.value))
    # The session and daemon still work afterwards.
    a = np.asarray(x)
    check(x + x, 2 * a, np.complex64)
    np.testing.assert_array_equal(np.asarray(td.isnan(x)), np.isnan(a))
    check(td.square(x), np.square(a), np.complex64)
