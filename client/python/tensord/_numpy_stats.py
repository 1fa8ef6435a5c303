"""NumPy's statistics, NaN-aware reductions, set operations, binning, interpolation and
polynomials, as a few of the namespace's ops each (the rest of NumPy's names: _numpy_names.py).
All of them record lazily, except where NumPy's result size depends on the values (unique and
the set operations sync once, as td.unique_values does)."""
import builtins
import math

import numpy as np

from ._methods import _td
from ._numpy_names import _a

__all__ = [
    "ptp", "average", "percentile", "nanpercentile", "nanmax", "nanmin", "nanargmax",
    "nanargmin", "nanprod", "nancumsum", "nanvar", "nanstd", "cov", "corrcoef", "isin", "unique",
    "union1d", "intersect1d", "setdiff1d", "digitize", "histogram", "histogram2d", "interp",
    "trapz", "vander", "polyval", "polyfit", "select", "piecewise", "unravel_index", "gradient",
]


def _float(x):
    td = _td()
    return x if td.isdtype(x.dtype, ("real floating", "complex floating")) else td.astype(
        x, td.float64)


# --- reductions --------------------------------------------------------------------------------
def ptp(a, axis=None, keepdims=False):
    td = _td()
    a = _a(a)
    return td.max(a, axis=axis, keepdims=keepdims) - td.min(a, axis=axis, keepdims=keepdims)


def average(a, axis=None, weights=None, keepdims=False):
    td = _td()
    a = _float(_a(a))
    if weights is None:
        return td.mean(a, axis=axis, keepdims=keepdims)
    w = _a(weights)
    if w.ndim == 1 and a.ndim > 1:
        if axis is None:
            raise TypeError("axis must be given when the weights are 1-d and the array is not")
        shape = [1] * a.ndim
        shape[axis] = w.shape[0]
        w = td.reshape(w, tuple(shape))
    return (td.sum(a * w, axis=axis, keepdims=keepdims) /
            td.sum(w * td.ones_like(a), axis=axis, keepdims=keepdims))


def _quantile(fn, a, q, axis, keepdims, method):
    q = _a(q) / 100.0 if not isinstance(q, (int, float)) else q / 100.0
    return fn(_float(_a(a)), q, axis, keepdims, interpolation=method)


def percentile(a, q, axis=None, keepdims=False, method="linear"):
    return _quantile(_td().quantile, a, q, axis, keepdims, method)


def nanpercentile(a, q, axis=None, keepdims=False, method="linear"):
    return _quantile(_td().nanquantile, a, q, axis, keepdims, method)


def _filled(a, value):
    td = _td()
    a = _a(a)
    return td.where(td.isnan(a), value, a) if td.isdtype(a.dtype, "real floating") else a


def nanmax(a, axis=None, keepdims=False):
    """The maximum ignoring NaN; NaN where every element is NaN (NumPy warns there)."""
    td = _td()
    a = _a(a)
    m = td.max(_filled(a, -math.inf), axis=axis, keepdims=keepdims)
    if not td.isdtype(a.dtype, "real floating"):
        return m
    return td.where(td.all(td.isnan(a), axis=axis, keepdims=keepdims), math.nan, m)


def nanmin(a, axis=None, keepdims=False):
    td = _td()
    a = _a(a)
    m = td.min(_filled(a, math.inf), axis=axis, keepdims=keepdims)
    if not td.isdtype(a.dtype, "real floating"):
        return m
    return td.where(td.all(td.isnan(a), axis=axis, keepdims=keepdims), math.nan, m)


def nanargmax(a, axis=None):
    """An all-NaN slice gives 0 (NumPy raises ValueError)."""
    return _td().argmax(_filled(a, -math.inf), axis=axis)


def nanargmin(a, axis=None):
    return _td().argmin(_filled(a, math.inf), axis=axis)


def nanprod(a, axis=None, keepdims=False):
    return _td().prod(_filled(a, 1.0), axis=axis, keepdims=keepdims)


def nancumsum(a, axis=None):
    a = _filled(a, 0.0)
    if axis is None:
        return _td().cumsum(_td().reshape(a, (-1,)), axis=0)
    return _td().cumsum(a, axis=axis)


def nanvar(a, axis=None, ddof=0, keepdims=False):
    td = _td()
    a = _float(_a(a))
    valid = ~td.isnan(a)

    def count(keep):
        return td.sum(td.astype(valid, td.float64), axis=axis, keepdims=keep)

    mean = td.sum(_filled(a, 0.0), axis=axis, keepdims=True) / count(True)
    d = td.where(valid, td.abs(a - mean), 0.0)
    return td.sum(d * d, axis=axis, keepdims=keepdims) / (count(keepdims) - ddof)


def nanstd(a, axis=None, ddof=0, keepdims=False):
    return _td().sqrt(nanvar(a, axis=axis, ddof=ddof, keepdims=keepdims))


def cov(m, y=None, rowvar=True, bias=False, ddof=None):
    """The covariance matrix of the variables in the rows (rowvar) or columns of m (and y)."""
    td = _td()
    x = _float(_a(m))
    x = td.reshape(x, (1, -1)) if x.ndim == 1 else x
    if not rowvar:
        x = td.permute_dims(x, (1, 0))
    if y is not None:
        yy = _float(_a(y))
        yy = td.reshape(yy, (1, -1)) if yy.ndim == 1 else yy
        x = td.concat([x, yy if rowvar else td.permute_dims(yy, (1, 0))], axis=0)
    n = x.shape[1]
    ddof = (0 if bias else 1) if ddof is None else ddof
    d = x - td.mean(x, axis=1, keepdims=True)
    c = td.matmul(d, td.permute_dims(td.conj(d), (1, 0))) / (n - ddof)
    return td.reshape(c, ()) if c.shape == (1, 1) else c


def corrcoef(x, y=None, rowvar=True):
    td = _td()
    c = cov(x, y, rowvar)
    if c.ndim == 0:
        return c / c
    d = td.sqrt(td.real(td.diagonal(c)))
    r = c / d[:, None] / d[None, :]
    return r if td.isdtype(r.dtype, "complex floating") else td.clip(r, -1, 1)


# --- sets --------------------------------------------------------------------------------------
def isin(element, test_elements, invert=False):
    """Whether each element is among test_elements: a sorted copy of them searched."""
    td = _td()
    x, t = _a(element), td.sort(td.reshape(_a(test_elements), (-1,)))
    if t.shape[0] is None:  # test elements of a data-dependent size: sync once to learn it
        td.sync(t)
    if t.shape[0] == 0:
        found = td.zeros(x.shape, dtype=td.bool)
    else:
        found = t[td.clip(td.searchsorted(t, x), 0, t.shape[0] - 1)] == x
    return ~found if invert else found


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None):
    """The sorted unique values of the flattened array, with NumPy's optional first indices,
    inverse indices and counts (axis is not supported)."""
    td = _td()
    if axis is not None:
        raise NotImplementedError("unique along an axis is not supported (flattened only)")
    x = td.reshape(_a(ar), (-1,))
    if not (return_index or return_inverse or return_counts):
        return td.unique_values(x)
    u = td.unique_all(x)
    out = [u.values]
    if return_index:
        out.append(u.indices)
    if return_inverse:
        out.append(u.inverse_indices)
    if return_counts:
        out.append(u.counts)
    return tuple(out)


def union1d(ar1, ar2):
    return unique(_td().concat([_td().reshape(_a(ar1), (-1,)), _td().reshape(_a(ar2), (-1,))]))


def intersect1d(ar1, ar2):
    a = unique(ar1)
    return a[isin(a, ar2)]


def setdiff1d(ar1, ar2):
    a = unique(ar1)
    return a[isin(a, ar2, invert=True)]


# --- binning and interpolation -----------------------------------------------------------------
def digitize(x, bins, right=False):
    """The index of the bin of each value, for increasing bins."""
    return _td().searchsorted(_a(bins), _a(x), side="left" if right else "right")


def _bin_index(x, bins, range):
    """(idx, edges, inside) of flat float values x: `bins` equal bins over `range` (the data's
    min and max by default) or increasing edges; the last bin includes its right edge; idx is
    meaningful where inside. Equal bins place each value by its edges, as NumPy does."""
    td = _td()
    if isinstance(bins, int):
        lo, hi = (td.min(x), td.max(x)) if range is None else (_a(range[0]), _a(range[1]))
        lo, hi = td.astype(_a(lo), x.dtype), td.astype(_a(hi), x.dtype)
        same = lo == hi
        lo, hi = td.where(same, lo - 0.5, lo), td.where(same, hi + 0.5, hi)
        # np.linspace's arithmetic: lo + k * step, the last edge exactly hi.
        k = td.arange(bins + 1, dtype=x.dtype)
        edges = td.where(k == bins, hi, lo + k * ((hi - lo) / bins))
        idx = td.clip(td.astype(td.floor((x - lo) / (hi - lo) * bins), td.int64), 0, bins - 1)
        # The computed position may be one off its edges by rounding: the edges decide.
        idx = idx - td.astype(x < td.take(edges, idx), td.int64)
        idx = idx + td.astype((x >= td.take(edges, idx + 1)) & (idx != bins - 1), td.int64)
    else:
        edges = _float(_a(bins))
        bins = edges.shape[0] - 1
        idx = td.searchsorted(edges, x, side="right") - 1
        idx = td.where(x == edges[-1], bins - 1, idx)
    return idx, edges, (x >= edges[0]) & (x <= edges[-1])


def _counts(idx, inside, n, weights):
    """Per-bin counts (int64) or sums of weights of the flat bin indices idx in [0, n)."""
    td = _td()
    if weights is None:
        counts = td.bincount(td.where(inside, idx, n), minlength=n + 1)[:n]
        return td.astype(counts, td.int64)
    w = td.reshape(_a(weights), (-1,))
    return td.bincount(td.clip(idx, 0, n - 1), weights=td.where(inside, w, 0), minlength=n)


def histogram(a, bins=10, range=None, weights=None):
    """(counts, edges): `bins` equal bins over `range` (the data's min and max by default), or
    bins given as increasing edges; the last bin includes its right edge, values outside are
    not counted."""
    x = _td().reshape(_float(_a(a)), (-1,))
    idx, edges, inside = _bin_index(x, bins, range)
    return _counts(idx, inside, edges.shape[0] - 1, weights), edges


def histogram2d(x, y, bins=10, range=None, density=None, weights=None):
    """(H, xedges, yedges): H[i, j] counts the points with x in x's bin i and y in y's bin j
    (float64, as NumPy's histogramdd gives); bins is a count, edges, or a pair of either;
    range is [[xmin, xmax], [ymin, ymax]]. density is not supported."""
    td = _td()
    if density:
        raise NotImplementedError("histogram2d: density=True is not supported; divide H by "
                                  "its sum and the bin areas")
    pair = isinstance(bins, (list, tuple)) and len(bins) == 2
    bx, by = bins if pair else (bins, bins)
    rx, ry = (None, None) if range is None else range
    xs, ys = (td.reshape(_float(_a(v)), (-1,)) for v in (x, y))
    ix, xedges, in_x = _bin_index(xs, bx, rx)
    iy, yedges, in_y = _bin_index(ys, by, ry)
    nx, ny = xedges.shape[0] - 1, yedges.shape[0] - 1
    counts = _counts(ix * ny + iy, in_x & in_y, nx * ny, weights)
    return td.reshape(td.astype(counts, td.float64), (nx, ny)), xedges, yedges


def interp(x, xp, fp, left=None, right=None):
    """Piecewise linear through (xp, fp), xp increasing; fp[0] / fp[-1] (or left / right)
    outside."""
    td = _td()
    x, xp, fp = _float(_a(x)), _float(_a(xp)), _float(_a(fp))
    n = xp.shape[0]
    i = td.clip(td.searchsorted(xp, x, side="right") - 1, 0, builtins.max(n - 2, 0))
    x0, x1 = td.take(xp, i), td.take(xp, td.clip(i + 1, 0, n - 1))
    y0, y1 = td.take(fp, i), td.take(fp, td.clip(i + 1, 0, n - 1))
    span = x1 - x0
    y = td.where(span == 0, y0, y0 + (x - x0) * (y1 - y0) / td.where(span == 0, 1.0, span))
    y = td.where(x == xp[-1], fp[-1], y)
    y = td.where(x < xp[0], fp[0] if left is None else left, y)
    return td.where(x > xp[-1], fp[-1] if right is None else right, y)


def trapz(y, x=None, dx=1.0, axis=-1):
    """The trapezoidal rule along `axis`, over samples at x (or spaced dx)."""
    td = _td()
    y = _float(_a(y))
    n = y.shape[axis]
    lo = [slice(None)] * y.ndim
    hi = [slice(None)] * y.ndim
    lo[axis], hi[axis] = slice(0, n - 1), slice(1, n)
    mid = (y[tuple(hi)] + y[tuple(lo)]) / 2.0
    if x is None:
        return td.sum(mid, axis=axis) * dx
    d = td.diff(_float(_a(x)), axis=-1)
    if d.ndim == 1 and y.ndim > 1:
        shape = [1] * y.ndim
        shape[axis] = d.shape[0]
        d = td.reshape(d, tuple(shape))
    return td.sum(mid * d, axis=axis)


# --- polynomials and the rest ------------------------------------------------------------------
def vander(x, N=None, increasing=False):
    td = _td()
    x = _a(x)
    n = x.shape[0] if N is None else N
    powers = td.arange(n) if increasing else td.arange(n - 1, -1, -1)
    return td.reshape(x, (-1, 1)) ** td.astype(powers, x.dtype)


def polyval(p, x):
    """Horner's rule; p from the highest degree down, as NumPy's."""
    td = _td()
    x = _a(x)
    coeffs = list(p) if not hasattr(p, "shape") else [p[i] for i in builtins.range(p.shape[0])]
    y = td.zeros_like(x) + coeffs[0] if coeffs else td.zeros_like(x)
    for c in coeffs[1:]:
        y = y * x + c
    return y


def polyfit(x, y, deg):
    """The least-squares polynomial of degree deg (coefficients from the highest down)."""
    td = _td()
    v = vander(_float(_a(x)), deg + 1)
    yy = _float(_a(y))
    sol = td.linalg.lstsq(v, yy if yy.ndim == 2 else td.reshape(yy, (-1, 1)))[0]
    return sol if yy.ndim == 2 else td.reshape(sol, (-1,))


def select(condlist, choicelist, default=0):
    td = _td()
    out = _a(default)
    for cond, choice in reversed(list(zip(condlist, choicelist))):
        out = td.where(_a(cond), _a(choice), out)
    return out


def piecewise(x, condlist, funclist, *args, **kw):
    """NumPy's piecewise: where condlist[i] holds, funclist[i](x, *args, **kw) (or the value
    funclist[i]); a last extra entry of funclist applies where no condition holds; elsewhere 0;
    later conditions win; the result has x's dtype. Each function is evaluated on all of x and
    its values selected (NumPy calls it on x[cond] only), so it must be elementwise."""
    td = _td()
    x = _a(x)
    # As NumPy reads condlist: a list of conditions, unless its items are scalars (one condition
    # of a non-scalar x); an array of x's rank is one condition, one rank more a stack of them.
    if isinstance(condlist, (list, tuple)) and not (
            condlist and x.ndim != 0 and isinstance(condlist[0], (bool, int, np.bool_))):
        conds = [_a(c) for c in condlist]
    else:
        c = _a(condlist)
        conds = [c] if c.ndim <= x.ndim else [c[i] for i in builtins.range(c.shape[0])]
    funcs = list(funclist)
    if len(funcs) == len(conds) + 1:
        none = td.full(x.shape, True)
        for c in conds:
            none = none & ~c
        conds.append(none)
    elif len(funcs) != len(conds):
        raise ValueError(f"with {len(conds)} condition(s), either {len(conds)} or "
                         f"{len(conds) + 1} functions are expected")
    out = td.zeros(x.shape, dtype=x.dtype)
    for cond, f in zip(conds, funcs):
        value = f(x, *args, **kw) if callable(f) else f
        out = td.where(cond, td.astype(_a(value), x.dtype), out)
    return out


def unravel_index(indices, shape):
    """A tuple of coordinate arrays (C order)."""
    idx = _a(indices)
    coords = []
    for size in reversed(shape):
        coords.append(idx % size)
        idx = idx // size
    return tuple(reversed(coords))


def gradient(f, *varargs, axis=None, edge_order=1):
    """Central differences inside, one-sided first differences at the edges (edge_order 1),
    uniform spacing (a scalar per axis); one array per axis, or one array for a 1-d input."""
    td = _td()
    f = _float(_a(f))
    if edge_order != 1:
        raise NotImplementedError("gradient supports edge_order=1 only")
    axes = list(builtins.range(f.ndim)) if axis is None else (
        [axis] if isinstance(axis, int) else list(axis))
    spacing = list(varargs) if len(varargs) > 1 else [varargs[0] if varargs else 1.0] * len(axes)
    out = []
    for ax, h in zip(axes, spacing):
        if not isinstance(h, (int, float)):
            raise NotImplementedError("gradient takes scalar spacings only")
        n = f.shape[ax]
        if n < 2:
            raise ValueError("each axis of gradient's input needs at least 2 elements")

        def part(lo, hi):
            key = [slice(None)] * f.ndim
            key[ax] = slice(lo, hi)
            return f[tuple(key)]

        pieces = [(part(1, 2) - part(0, 1)) / h]
        if n > 2:
            pieces.append((part(2, n) - part(0, n - 2)) / (2.0 * h))
        pieces.append((part(n - 1, n) - part(n - 2, n - 1)) / h)
        out.append(td.concat(pieces, axis=ax))
    return out[0] if len(out) == 1 else out
