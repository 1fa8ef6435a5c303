"""NumPy's names in the namespace (_numpy_names.py, _numpy_stats.py): each against NumPy itself
on the same values, so that NumPy code runs with np replaced by td."""
import math

import numpy as np
import pytest

import tensord as td


def rng(seed=0):
    return np.random.default_rng(seed)


def check(got, want, rtol=1e-6, atol=1e-9):
    if isinstance(want, (list, tuple)):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            check(g, w, rtol, atol)
        return
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    if want.dtype.kind in "biu":
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, equal_nan=True)


def test_elementwise_names():
    a = rng(1).uniform(-0.9, 0.9, (3, 5))
    b = rng(2).uniform(0.5, 2.0, (3, 5))
    x, y = td.asarray(a), td.asarray(b)
    for name in ["absolute", "fabs", "arcsin", "arccos", "arctan", "arcsinh", "arctanh", "rint",
                 "fix", "deg2rad", "radians", "rad2deg", "degrees", "cbrt", "conjugate"]:
        check(getattr(td, name)(x), getattr(np, name)(a))
    check(td.arccosh(y + 1), np.arccosh(b + 1))
    for name in ["arctan2", "power", "float_power", "true_divide", "mod", "fmax", "fmin"]:
        check(getattr(td, name)(y, x), getattr(np, name)(b, a))
    check(td.around(x * 100, 1), np.around(a * 100, 1))
    check(td.around(x * 1000, -2), np.around(a * 1000, -2))
    check(td.ldexp(x, td.asarray(np.arange(15).reshape(3, 5) - 7)),
          np.ldexp(a, np.arange(15).reshape(3, 5) - 7))
    special = np.array([-2.0, 0.0, 3.0, np.nan, np.inf, -np.inf])
    s = td.asarray(special)
    check(td.heaviside(s, 0.5), np.heaviside(special, 0.5))
    check(td.fmax(s, 1.0), np.fmax(special, 1.0))
    check(td.fmin(td.asarray([np.nan, 1.0]), td.asarray([np.nan, np.nan])), [np.nan, 1.0])
    check(td.isneginf(s), np.isneginf(special))
    check(td.isposinf(s), np.isposinf(special))
    z = np.array([1 + 0j, 2j, 3 - 1j])
    check(td.iscomplex(td.asarray(z)), np.iscomplex(z))
    check(td.isreal(td.asarray(z)), np.isreal(z))
    check(td.iscomplex(x), np.iscomplex(a))
    assert td.isscalar(3.0) and not td.isscalar(x)


def test_closeness():
    a = np.array([1.0, 1e10, np.nan, np.inf, -np.inf, 1e-9])
    b = np.array([1.0 + 1e-7, 1.0001e10, np.nan, np.inf, np.inf, 0.0])
    x, y = td.asarray(a), td.asarray(b)
    check(td.isclose(x, y), np.isclose(a, b))
    check(td.isclose(x, y, equal_nan=True), np.isclose(a, b, equal_nan=True))
    check(td.isclose(x, y, rtol=0, atol=1e-8), np.isclose(a, b, rtol=0, atol=1e-8))
    assert td.allclose(x[:2], y[:2]) is np.allclose(a[:2], b[:2])
    assert td.allclose(x, y) is False
    assert td.allclose(x, y, equal_nan=True) is np.allclose(a, b, equal_nan=True)
    assert td.array_equal(x, x) is False  # NaN
    assert td.array_equal(x, x, equal_nan=True) is True
    assert td.array_equal(x, x[:3]) is False


def test_creation():
    check(td.array([[1, 2], [3, 4]]), np.array([[1, 2], [3, 4]]))
    x = td.asarray(np.arange(4.0))
    c = td.copy(x)
    c[0] = 9.0
    check(x, np.arange(4.0))
    check(c, [9.0, 1.0, 2.0, 3.0])
    check(td.identity(3), np.identity(3))
    check(td.tri(3, 4, k=1), np.tri(3, 4, k=1))
    check(td.logspace(0, 3, 4), np.logspace(0, 3, 4))
    check(td.logspace(0, 3, 5, base=2.0, endpoint=False), np.logspace(0, 3, 5, base=2.0,
                                                                      endpoint=False))
    g = np.asarray(td.geomspace(1, 1000, 4))
    check(g, np.geomspace(1, 1000, 4))
    assert g[0] == 1 and g[-1] == 1000
    with pytest.raises(ValueError):
        td.geomspace(-1, 10, 3)


def test_joining_and_splitting():
    a, b = np.arange(6.0).reshape(2, 3), np.arange(6.0, 12).reshape(2, 3)
    v, w = np.arange(3.0), np.arange(3.0, 6)
    x, y, p, q = map(td.asarray, (a, b, v, w))
    check(td.concatenate([x, y]), np.concatenate([a, b]))
    check(td.concatenate([x, y], axis=1), np.concatenate([a, b], axis=1))
    check(td.concatenate([x, p], axis=None), np.concatenate([a, v], axis=None))
    for name in ["hstack", "vstack", "dstack", "column_stack"]:
        check(getattr(td, name)([x, y]), getattr(np, name)([a, b]))
        check(getattr(td, name)([p, q]), getattr(np, name)([v, w]))
    for name in ["atleast_1d", "atleast_2d", "atleast_3d"]:
        for arr in [np.float64(2.0), v, a]:
            check(getattr(td, name)(td.asarray(arr)), getattr(np, name)(arr))
    check(td.atleast_2d(p, x), np.atleast_2d(v, a))
    m = np.arange(24.0).reshape(2, 3, 4)
    t = td.asarray(m)
    check(td.array_split(td.asarray(np.arange(10)), 3), np.array_split(np.arange(10), 3))
    check(td.array_split(t, [1, 3], axis=2), np.array_split(m, [1, 3], axis=2))
    check(td.array_split(t, [-1, 9], axis=2), np.array_split(m, [-1, 9], axis=2))
    check(td.hsplit(t, 3), np.hsplit(m, 3))
    check(td.vsplit(t, 2), np.vsplit(m, 2))
    check(td.dsplit(t, [1]), np.dsplit(m, [1]))
    with pytest.raises(ValueError):
        td.vsplit(t, 3)
    check(td.swapaxes(t, 0, 2), np.swapaxes(m, 0, 2))
    check(td.transpose(t), np.transpose(m))
    check(td.transpose(t, (1, 0, 2)), np.transpose(m, (1, 0, 2)))
    check(td.ravel(t), np.ravel(m))
    check(td.append(x, p), np.append(a, v))
    check(td.append(x, y, axis=0), np.append(a, b, axis=0))
    for axis, start in [(0, 0), (0, 3), (2, 0), (-1, 1), (1, -1), (1, 2), (2, 3)]:
        check(td.rollaxis(t, axis, start), np.rollaxis(m, axis, start))
    for axis, start in [(3, 0), (0, 4), (0, -4)]:
        with pytest.raises(ValueError):
            np.rollaxis(m, axis, start)
        with pytest.raises(ValueError):
            td.rollaxis(t, axis, start)
    for shape in [(7,), 5, (3, 5), (2, 3, 4), (0,), (4, 0)]:
        check(td.resize(x, shape), np.resize(a, shape))
    check(td.resize(td.asarray(np.zeros(0)), (2, 2)), np.resize(np.zeros(0), (2, 2)))
    assert td.resize(td.asarray(np.arange(3)), 4).numpy().dtype == np.resize(np.arange(3), 4).dtype
    with pytest.raises(ValueError):
        td.resize(x, (-1, 2))


def test_products():
    r = rng(3)
    a, b = r.standard_normal((3, 4)), r.standard_normal((4, 2))
    u, v = r.standard_normal(4), r.standard_normal(4)
    m, n = r.standard_normal((2, 3, 4)), r.standard_normal((5, 4, 2))
    x, y, p, q, s, t = map(td.asarray, (a, b, u, v, m, n))
    check(td.dot(x, y), np.dot(a, b))
    check(td.dot(p, q), np.dot(u, v))
    check(td.dot(x, p), np.dot(a, u))
    check(td.dot(s, t), np.dot(m, n))
    check(td.dot(x, 2.0), np.dot(a, 2.0))
    z = (r.standard_normal(4) + 1j * r.standard_normal(4)).astype(np.complex128)
    check(td.vdot(td.asarray(z), td.asarray(z[::-1].copy())), np.vdot(z, z[::-1]))
    check(td.inner(x, td.asarray(a)), np.inner(a, a))
    check(td.inner(p, q), np.inner(u, v))
    check(td.outer(x, p), np.outer(a, u))
    check(td.trace(s), np.trace(m))
    check(td.trace(s, offset=1, axis1=1, axis2=2), np.trace(m, offset=1, axis1=1, axis2=2))
    check(td.kron(x, y), np.kron(a, b))
    c3, d3 = r.standard_normal((5, 3)), r.standard_normal((5, 3))
    check(td.cross(td.asarray(c3), td.asarray(d3)), np.cross(c3, d3))


def test_statistics():
    r = rng(4)
    a = r.standard_normal((4, 6))
    w = r.uniform(0.1, 1.0, 6)
    x = td.asarray(a)
    check(td.ptp(x), np.ptp(a))
    check(td.ptp(x, axis=1), np.ptp(a, axis=1))
    check(td.average(x), np.average(a))
    check(td.average(x, axis=1, weights=td.asarray(w)), np.average(a, axis=1, weights=w))
    check(td.average(x, weights=td.asarray(a * a)), np.average(a, weights=a * a))
    check(td.percentile(x, 30), np.percentile(a, 30))
    check(td.percentile(x, 75, axis=0), np.percentile(a, 75, axis=0))
    check(td.cov(x), np.cov(a))
    check(td.cov(x, rowvar=False, bias=True), np.cov(a, rowvar=False, bias=True))
    check(td.cov(x[0], x[1]), np.cov(a[0], a[1]))
    check(td.cov(x[0]), np.cov(a[0]))
    check(td.corrcoef(x), np.corrcoef(a))
    check(td.corrcoef(x[0], x[2]), np.corrcoef(a[0], a[2]))


def test_nan_reductions():
    a = rng(5).standard_normal((4, 5))
    a[0, 1] = a[2, 3] = a[3, 3] = np.nan
    a[:, 4] = np.nan  # an all-NaN column
    x = td.asarray(a)
    with np.errstate(all="ignore"), pytest.warns(RuntimeWarning):
        want_max, want_min = np.nanmax(a, axis=0), np.nanmin(a, axis=0)
    check(td.nanmax(x, axis=0), want_max)
    check(td.nanmin(x, axis=0), want_min)
    check(td.nanmax(x), np.nanmax(a))
    check(td.nanargmax(x[:, :4], axis=0), np.nanargmax(a[:, :4], axis=0))
    check(td.nanargmin(x[:3], axis=1), np.nanargmin(a[:3], axis=1))
    check(td.nanprod(x, axis=1), np.nanprod(a, axis=1))
    check(td.nancumsum(x, axis=1), np.nancumsum(a, axis=1))
    check(td.nancumsum(x), np.nancumsum(a))
    b = a[:, :4]
    y = td.asarray(b)
    check(td.nanvar(y, axis=0), np.nanvar(b, axis=0))
    check(td.nanstd(y, ddof=1), np.nanstd(b, ddof=1))
    check(td.nanvar(y, axis=1, keepdims=True), np.nanvar(b, axis=1, keepdims=True))
    check(td.nanpercentile(y, 40, axis=0), np.nanpercentile(b, 40, axis=0))


def test_sets():
    a = np.array([3, 1, 4, 1, 5, 9, 2, 6, 5, 3])
    b = np.array([5, 3, 8, 7, 1])
    x, y = td.asarray(a), td.asarray(b)
    check(td.isin(x, y), np.isin(a, b))
    check(td.isin(x, y, invert=True), np.isin(a, b, invert=True))
    check(td.isin(x, td.asarray(np.array([], np.int64))), np.isin(a, []))
    check(td.unique(x), np.unique(a))
    check(td.unique(x, return_index=True, return_inverse=True, return_counts=True),
          np.unique(a, return_index=True, return_inverse=True, return_counts=True))
    check(td.union1d(x, y), np.union1d(a, b))
    check(td.intersect1d(x, y), np.intersect1d(a, b))
    check(td.setdiff1d(x, y), np.setdiff1d(a, b))
    check(td.isin(x, td.unique(y)), np.isin(a, b))  # test elements of a data-dependent size
    f = np.array([0.5, np.nan, 2.0])
    check(td.isin(td.asarray(f), td.asarray(np.array([2.0, np.nan]))), np.isin(f, [2.0, np.nan]))


def test_binning_and_interpolation():
    r = rng(6)
    a = r.standard_normal(1000)
    bins = np.array([-2.0, -0.5, 0.0, 0.3, 1.5])
    x = td.asarray(a)
    check(td.digitize(x, td.asarray(bins)), np.digitize(a, bins))
    check(td.digitize(x, td.asarray(bins), right=True), np.digitize(a, bins, right=True))
    for kwargs in [{}, {"bins": 7}, {"bins": 5, "range": (-1.0, 1.0)}]:
        check(td.histogram(x, **kwargs), np.histogram(a, **kwargs))
    check(td.histogram(x, bins=td.asarray(bins)), np.histogram(a, bins=bins))
    w = r.uniform(size=1000)
    check(td.histogram(x, bins=4, weights=td.asarray(w)), np.histogram(a, bins=4, weights=w))
    check(td.histogram(td.asarray(np.full(5, 2.0)), bins=3), np.histogram(np.full(5, 2.0), bins=3))
    b2 = r.standard_normal(1000)
    y2 = td.asarray(b2)
    for kwargs in [{}, {"bins": 4}, {"bins": [3, 5]}, {"bins": 6, "range": [[-1, 1], [0, 2]]},
                   {"bins": [bins, np.array([-1.0, 0.0, 1.0])]}, {"bins": bins}]:
        td_kwargs = dict(kwargs)
        if isinstance(kwargs.get("bins"), np.ndarray):
            td_kwargs["bins"] = td.asarray(kwargs["bins"])
        got = td.histogram2d(x, y2, **td_kwargs)
        want = np.histogram2d(a, b2, **kwargs)
        check(got, want)
        assert got[0].numpy().dtype == want[0].dtype
    check(td.histogram2d(x, y2, bins=3, weights=td.asarray(w)),
          np.histogram2d(a, b2, bins=3, weights=w))
    with pytest.raises(NotImplementedError, match="density"):
        td.histogram2d(x, y2, density=True)
    grid = np.linspace(0, 1, 21)
    xp, fp = np.array([0.0, 0.25, 0.5, 1.0]), np.array([1.0, 3.0, 2.0, 0.0])
    check(td.interp(td.asarray(grid), td.asarray(xp), td.asarray(fp)), np.interp(grid, xp, fp))
    out = np.array([-1.0, 0.0, 1.0, 2.0])
    check(td.interp(td.asarray(out), td.asarray(xp), td.asarray(fp), left=-5.0, right=5.0),
          np.interp(out, xp, fp, left=-5.0, right=5.0))
    y = r.standard_normal((3, 8))
    check(td.trapz(td.asarray(y)), np.trapz(y))
    check(td.trapz(td.asarray(y), dx=0.5, axis=0), np.trapz(y, dx=0.5, axis=0))
    xs = np.sort(r.uniform(size=8))
    check(td.trapz(td.asarray(y), x=td.asarray(xs)), np.trapz(y, x=xs))


def test_polynomials_and_the_rest():
    v = np.array([1.0, 2.0, 3.0, 5.0])
    check(td.vander(td.asarray(v)), np.vander(v))
    check(td.vander(td.asarray(v), 3, increasing=True), np.vander(v, 3, increasing=True))
    p = [2.0, -1.0, 0.5]
    check(td.polyval(p, td.asarray(v)), np.polyval(p, v))
    check(td.polyval(td.asarray(np.array(p)), td.asarray(v)), np.polyval(p, v))
    xs = np.linspace(-1, 1, 20)
    ys = 3 * xs ** 2 - xs + 0.25 + 0.01 * np.sin(7 * xs)
    check(td.polyfit(td.asarray(xs), td.asarray(ys), 2), np.polyfit(xs, ys, 2), rtol=1e-8)
    a = np.arange(-3, 4)
    x = td.asarray(a)
    check(td.select([x < -1, x > 1], [x * 10, x * 100], default=-7),
          np.select([a < -1, a > 1], [a * 10, a * 100], default=-7))
    for conds, funcs, args in [
            (lambda v: [v < 0, v >= 0], [lambda v: -v, lambda v: v ** 2], ()),
            (lambda v: [v < -1, v > 1], [0.5, lambda v: v * 3, -9], ()),
            (lambda v: [v > 0, v > 2], [lambda v: v + 0.25, 7.75], ()),
            (lambda v: v > 0, [lambda v, k: v * k, 1.0], (3,))]:
        check(td.piecewise(x, conds(x), funcs, *args), np.piecewise(a, conds(a), funcs, *args))
    fa = a.astype(np.float64)
    check(td.piecewise(td.asarray(fa), [a < 0, a > 0], [np.sin, np.cos]),
          np.piecewise(fa, [a < 0, a > 0], [np.sin, np.cos]))
    check(td.piecewise(x, [True, False, True, False, True, False, True], [5]),
          np.piecewise(a, [True, False, True, False, True, False, True], [5]))
    assert td.piecewise(x, [x < 0], [0.7]).numpy().dtype == a.dtype  # x's dtype, as NumPy's
    with pytest.raises(ValueError, match="functions are expected"):
        td.piecewise(x, [x < 0, x > 0], [1])
    check(td.unravel_index(td.asarray(np.array([0, 7, 22])), (2, 3, 4)),
          np.unravel_index([0, 7, 22], (2, 3, 4)))
    f = np.array([[1.0, 2.0, 4.0, 7.0], [2.0, 3.0, 9.0, 1.0], [0.0, 5.0, 5.0, 5.0]])
    check(td.gradient(td.asarray(f[0])), np.gradient(f[0]))
    check(td.gradient(td.asarray(f), 0.5, 2.0), np.gradient(f, 0.5, 2.0))
    check(td.gradient(td.asarray(f), axis=1), np.gradient(f, axis=1))
    assert math.isclose(float(td.around(td.asarray(2.5))), 2.0)
