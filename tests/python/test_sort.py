"""Sorting and issue 4's further special functions through the Python namespace against
NumPy (the conformance table checks every dtype and edge; this checks the bindings, their
arguments and their errors)."""
import math

import numpy as np
import pytest

import tensord as td
from test_interop import random_values


def check(got, want, rtol=1e-5, atol=1e-6):
    np.testing.assert_allclose(np.asarray(got), want, rtol=rtol, atol=atol, equal_nan=True)


@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.float64])
def test_sort_and_argsort_match_numpy_stable(axis, dtype):
    a = (random_values((5, 7), np.float32, seed=3) * 2).round().astype(dtype)  # many ties
    np.testing.assert_array_equal(np.asarray(td.sort(td.asarray(a), axis=axis)),
                                  np.sort(a, axis=axis, kind="stable"))
    got = np.asarray(td.argsort(td.asarray(a), axis=axis))
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, np.argsort(a, axis=axis, kind="stable"))


def test_descending_is_stable_and_nan_sorts_last_ascending_first_descending():
    a = np.array([2.0, np.nan, 1.0, 2.0, -np.inf, 1.0], np.float32)
    x = td.asarray(a)
    np.testing.assert_array_equal(np.asarray(td.argsort(x)), [4, 2, 5, 0, 3, 1])
    np.testing.assert_array_equal(np.asarray(td.argsort(x, descending=True)), [1, 0, 3, 2, 5, 4])
    np.testing.assert_array_equal(np.asarray(td.sort(x)), np.sort(a))
    np.testing.assert_array_equal(np.asarray(td.sort(x, descending=True, stable=False)),
                                  [np.nan, 2, 2, 1, 1, -np.inf])


def test_sort_errors():
    with pytest.raises(ValueError, match="rank"):
        td.sort(td.asarray(np.float32(1)))
    with pytest.raises(ValueError):
        td.argsort(td.asarray(np.zeros((2, 3), np.float32)), axis=2)


@pytest.mark.parametrize("method", ["linear", "lower", "higher", "nearest", "midpoint"])
def test_quantile_matches_numpy(method):
    a = random_values((6, 9), np.float64, seed=5)
    q = np.array([0.0, 0.1, 0.5, 0.75, 1.0])
    check(td.quantile(td.asarray(a), td.asarray(q), dim=1, interpolation=method),
          np.quantile(a, q, axis=1, method=method), rtol=1e-12)
    check(td.quantile(td.asarray(a), 0.3, interpolation=method),
          np.quantile(a, 0.3, method=method), rtol=1e-12)
    got = td.quantile(td.asarray(a), [0.25, 0.5], dim=0, keepdim=True, interpolation=method)
    assert got.shape == (2, 1, 9)
    check(got, np.quantile(a, [0.25, 0.5], axis=0, keepdims=True, method=method), rtol=1e-12)


def test_nanquantile_and_medians():
    a = np.array([[1.0, np.nan, 3.0, 2.0], [4.0, 5.0, 0.5, 9.0]], np.float32)
    check(td.nanquantile(td.asarray(a), 0.5, dim=1), np.nanquantile(a, 0.5, axis=1))
    check(td.quantile(td.asarray(a), 0.5, dim=1), [np.nan, np.quantile(a[1], 0.5)])
    assert math.isnan(float(td.median(td.asarray(a))))
    # torch's median is the lower median (NumPy averages the two middle values)
    finite = np.sort(a[~np.isnan(a)])
    assert float(td.nanmedian(td.asarray(a))) == finite[(finite.size - 1) // 2]
    b = np.array([5, 1, 4, 2], np.int64)
    assert int(td.median(td.asarray(b))) == 2


def test_quantile_errors():
    with pytest.raises(TypeError):
        td.quantile(td.asarray(np.arange(4)), 0.5)
    with pytest.raises(ValueError):
        td.quantile(td.asarray(np.ones(4, np.float32)), 0.5, interpolation="cubic")
    with pytest.raises(td.TensorError, match=r"\[0, 1\]"):
        td.quantile(td.asarray(np.ones(4, np.float32)), 1.5).numpy()
    with pytest.raises(ValueError):
        td.median(td.asarray(np.zeros((0,), np.float32)))


def _zeta(s, q, terms=200000):
    k = np.arange(terms, dtype=np.float64)
    return np.sum((k + q) ** -s) + (terms + q) ** (1 - s) / (s - 1) - 0.5 * (terms + q) ** -s


def test_special_functions():
    x = np.array([0.3, 1.0, 2.5, 7.0], np.float64)
    X = td.asarray(x)
    # trigamma(x) = zeta(2, x); polygamma(0) is digamma
    check(td.special.polygamma(1, X), [_zeta(2, v) for v in x], rtol=1e-9)
    check(td.special.polygamma(0, X), np.asarray(td.special.digamma(X)), rtol=1e-12)
    check(td.special.zeta(3.0, X), [_zeta(3, v) for v in x], rtol=1e-9)
    lg = np.vectorize(math.lgamma)
    check(td.special.multigammaln(td.asarray(x + 1), 2),
          0.5 * math.log(math.pi) + lg(x + 1) + lg(x + 0.5), rtol=1e-12)
    # P(1, x) = 1 - e^-x; P(0.5, x) = erf(sqrt x)
    check(td.special.gammainc(1.0, X), 1 - np.exp(-x), rtol=1e-12)
    check(td.special.gammaincc(td.asarray(np.full(4, 0.5)), X),
          [math.erfc(math.sqrt(v)) for v in x], rtol=1e-12)
    # J0 by its series
    j0 = [sum((-v * v / 4) ** k / math.factorial(k) ** 2 for k in range(40)) for v in x]
    check(td.special.bessel_j0(X), j0, rtol=1e-12, atol=1e-14)
    j1 = [sum((-1) ** k * (v / 2) ** (2 * k + 1) / (math.factorial(k) * math.factorial(k + 1))
              for k in range(40)) for v in x]
    check(td.special.bessel_j1(X), j1, rtol=1e-12, atol=1e-14)
    p = np.array([0.0, 1e-8, 0.5, 1.0], np.float32)
    check(td.special.logit(td.asarray(p), eps=1e-3),
          np.log(np.clip(p, 1e-3, 1 - 1e-3) / (1 - np.clip(p, 1e-3, 1 - 1e-3))), rtol=1e-5)
    with pytest.raises(ValueError, match="n must be >= 0"):
        td.special.polygamma(-1, X)
    with pytest.raises(ValueError, match="p must be >= 1"):
        td.special.multigammaln(X, 0)


def test_topk_kthvalue_mode_match_numpy():
    a = (random_values((4, 9), np.float32, seed=11) * 2).round()  # ties
    x = td.asarray(a)
    order = np.argsort(-a, axis=1, kind="stable")
    r = td.topk(x, 3, dim=1)
    assert type(r).__name__ == "topk" and r.values.shape == (4, 3)
    np.testing.assert_array_equal(np.asarray(r.indices), order[:, :3])
    np.testing.assert_array_equal(np.asarray(r.values), np.take_along_axis(a, order[:, :3], 1))
    unsorted = td.topk(x, 6, dim=1, sorted=False)  # the same six, in the sorted order too
    np.testing.assert_array_equal(np.asarray(unsorted.indices), order[:, :6])
    small = td.topk(x, 2, largest=False)
    np.testing.assert_array_equal(np.asarray(small.indices),
                                  np.argsort(a, axis=1, kind="stable")[:, :2])
    values, indices = td.kthvalue(x, 4, dim=1, keepdim=True)
    asc = np.argsort(a, axis=1, kind="stable")[:, 3:4]
    np.testing.assert_array_equal(np.asarray(indices), asc)
    np.testing.assert_array_equal(np.asarray(values), np.take_along_axis(a, asc, 1))
    m = td.mode(td.asarray(np.array([[1, 2, 2, 3, 3], [5, 5, 4, 4, 1]], np.int64)))
    np.testing.assert_array_equal(np.asarray(m.values), [2, 4])  # ties: the smallest value
    np.testing.assert_array_equal(np.asarray(m.indices), [2, 3])  # at its last position


def test_sort_with_indices_and_medians_along_an_axis():
    a = np.array([[3.0, 1.0, 2.0, 1.0], [np.nan, 0.0, 5.0, 4.0]], np.float64)
    x = td.asarray(a)
    m = td.median(x, dim=1)
    np.testing.assert_array_equal(np.asarray(m.values), [1.0, np.nan])
    # the lower median is element (n - 1) // 2 of the stable sort: the second 1, at position 3
    np.testing.assert_array_equal(np.asarray(m.indices), [3, 0])
    nm = td.nanmedian(x, dim=1, keepdim=True)
    np.testing.assert_array_equal(np.asarray(nm.values), [[1.0], [4.0]])
    np.testing.assert_array_equal(np.asarray(nm.indices), [[3], [3]])


def test_cummax_cummin_match_numpy():
    a = (random_values((3, 8), np.float32, seed=2) * 2).round()
    x = td.asarray(a)
    cmax = td.cummax(x, 1)
    np.testing.assert_array_equal(np.asarray(cmax.values), np.maximum.accumulate(a, axis=1))
    idx = np.asarray(cmax.indices)
    np.testing.assert_array_equal(np.take_along_axis(a, idx, 1), np.maximum.accumulate(a, axis=1))
    # ties take the latest position (torch's rule)
    c = td.cummin(td.asarray(np.array([2.0, 1.0, 1.0, 3.0], np.float32)), 0)
    np.testing.assert_array_equal(np.asarray(c.indices), [0, 1, 2, 2])
    with pytest.raises(ValueError, match="k = 10"):
        td.topk(x, 10)
