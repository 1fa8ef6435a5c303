"""NumPy's functions and ufuncs called on tensord arrays (_numpy_dispatch.py): what tensord
can take runs in the daemon and stays a tensord array; the rest runs in NumPy on fetched
copies, with NumPy's results."""
import numpy as np
import pytest

import tensord as td


def rand(shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def test_ufuncs_run_in_the_daemon():
    a, b = rand((3, 4), 1), rand((3, 4), 2)
    x, y = td.asarray(a), td.asarray(b)
    for ufunc in [np.sin, np.exp, np.abs, np.sqrt, np.negative, np.isnan, np.arcsin,
                  np.conjugate, np.square]:
        with np.errstate(invalid="ignore"):
            want = ufunc(a)
        got = ufunc(x)
        assert isinstance(got, td.Array), ufunc
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12, equal_nan=True)
    for ufunc in [np.add, np.multiply, np.maximum, np.arctan2, np.power, np.greater, np.hypot]:
        with np.errstate(invalid="ignore"):
            want = ufunc(np.abs(a), b)
        got = ufunc(np.abs(x), y)
        assert isinstance(got, td.Array), ufunc
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12, equal_nan=True)
    # A NumPy operand is uploaded, whichever side it is on.
    got = a + x
    assert isinstance(got, td.Array)
    np.testing.assert_allclose(np.asarray(got), 2 * a)
    assert isinstance(np.float64(2.0) * x, td.Array)
    ints = td.asarray(np.arange(6, dtype=np.int32))
    np.testing.assert_array_equal(np.asarray(np.invert(ints)), ~np.arange(6, dtype=np.int32))
    np.testing.assert_array_equal(np.asarray(np.left_shift(ints, 2)), np.arange(6) << 2)


def test_functions_run_in_the_daemon():
    a, b = rand((4, 4), 3), rand((4, 4), 4)
    x, y = td.asarray(a), td.asarray(b)
    cases = [
        (lambda m: np.concatenate([m, m]), None),
        (lambda m: np.mean(m, axis=0), None),
        (lambda m: np.sum(m), None),
        (lambda m: np.std(m, axis=1), None),
        (lambda m: np.transpose(m), None),
        (lambda m: np.dot(m, m), None),
        (lambda m: np.linalg.inv(m), None),
        (lambda m: np.linalg.det(m), None),
        (lambda m: np.fft.fft(m), None),
        (lambda m: np.where(m > 0, m, 0.0), None),
        (lambda m: np.clip(m, -0.5, 0.5), None),
        (lambda m: np.cumsum(m, axis=1), None),
        (lambda m: np.histogram(m, bins=5)[0], None),
    ]
    for f, _ in cases:
        got = f(x)
        assert isinstance(got, td.Array), f
        np.testing.assert_allclose(np.asarray(got), f(a), rtol=1e-10, atol=1e-12)
    assert np.allclose(x, x) is True
    assert isinstance(np.stack([x, y]), td.Array)


def test_what_tensord_cannot_take_runs_in_numpy():
    a = rand((6, 4), 5)
    x = td.asarray(a)
    # np.split means sections (td.split means sizes): NumPy's, on a fetched copy.
    parts = np.split(x, 3)
    assert len(parts) == 3 and all(isinstance(p, np.ndarray) for p in parts)
    np.testing.assert_array_equal(parts[1], a[2:4])
    # np.median averages the middle pair (td.median takes the lower one).
    assert np.median(x) == np.median(a)
    # A keyword tensord's function lacks (ddof), an out= buffer, a ufunc method.
    np.testing.assert_allclose(np.std(x, ddof=1), np.std(a, ddof=1))
    out = np.empty_like(a)
    np.sin(x, out=out)
    np.testing.assert_allclose(out, np.sin(a))
    np.testing.assert_allclose(np.add.reduce(x, axis=0), a.sum(axis=0))
    # Dtype questions get NumPy's dtypes.
    assert np.result_type(x, np.float32) == np.float64
    # A function tensord does not have.
    np.testing.assert_allclose(np.linalg.norm(x), np.linalg.norm(a))
    assert isinstance(np.linalg.norm(x), float)


def test_pad_constant_in_the_daemon_other_modes_in_numpy():
    a = rand((3, 4), 6)
    x = td.asarray(a)
    i = np.arange(12, dtype=np.int32).reshape(3, 4)
    for width in (1, (2, 0), ((1, 2), (0, 3)), [[0, 0], [2, 1]]):
        got = np.pad(x, width)
        assert isinstance(got, td.Array)
        np.testing.assert_array_equal(np.asarray(got), np.pad(a, width))
    got = np.pad(td.asarray(i), ((1, 1), (2, 0)), constant_values=-7)
    assert got.dtype == td.int32
    np.testing.assert_array_equal(np.asarray(got), np.pad(i, ((1, 1), (2, 0)),
                                                          constant_values=-7))
    np.testing.assert_array_equal(np.asarray(np.pad(td.asarray(a[0]), 2, constant_values=1.5)),
                                  np.pad(a[0], 2, constant_values=1.5))
    # Modes and per-axis values tensord lacks run in NumPy on a fetched copy.
    for kwargs in ({"mode": "edge"}, {"mode": "reflect"}, {"constant_values": ((1, 2), (3, 4))}):
        got = np.pad(x, 1, **kwargs)
        assert isinstance(got, np.ndarray)
        np.testing.assert_array_equal(got, np.pad(a, 1, **kwargs))
    with pytest.raises(ValueError, match="negative"):
        td.pad(x, -1)
    with pytest.raises(ValueError, match="does not fit"):
        td.pad(x, ((1, 2, 3),))
    with pytest.raises(TypeError, match="complex"):
        td.pad(x, 1, constant_values=1j)
