"""Issue 4's remaining indexing functions and data-dependent output shapes (nonzero, unique,
masked_select, boolean indexing) through the Python namespace, against NumPy. The
conformance table checks every dtype and edge case; this checks the bindings, the Array API
forms and how a data-dependent size reaches the client (None until synced)."""
import numpy as np
import pytest

import tensord as td


def eq(got, want):
    got = np.asarray(got)
    assert got.shape == np.shape(want)
    np.testing.assert_array_equal(got, want)


# --- searchsorted, bucketize -----------------------------------------------------------------
@pytest.mark.parametrize("side", ["left", "right"])
@pytest.mark.parametrize("dtype", [np.int32, np.float32, np.float64])
def test_searchsorted(side, dtype):
    seq = np.array([0, 1, 1, 2, 5, 7], dtype)
    v = np.array([[-1, 0, 1], [3, 7, 9]], dtype)
    eq(td.searchsorted(td.asarray(seq), td.asarray(v), side=side), np.searchsorted(seq, v, side))


def test_searchsorted_sorter_nan_and_empty():
    seq = np.array([3.0, np.nan, 1.0, 2.0])
    sorter = np.argsort(seq)
    v = np.array([0.5, 2.0, 9.0, np.nan])
    eq(td.searchsorted(td.asarray(seq), td.asarray(v), sorter=td.asarray(sorter)),
       np.searchsorted(seq, v, sorter=sorter))
    eq(td.searchsorted(td.asarray(np.zeros(0)), td.asarray(v)), np.zeros(4, np.int64))
    eq(td.searchsorted(td.asarray(seq[sorter]), td.asarray(np.float64(2.5))),
       np.searchsorted(seq[sorter], 2.5))
    with pytest.raises(ValueError):
        td.searchsorted(td.asarray(seq), td.asarray(v), side="middle")
    with pytest.raises(td.TensorError, match="out of bounds"):
        td.searchsorted(td.asarray(seq), td.asarray(v), sorter=td.asarray([0, 1, 2, 9])).numpy()


@pytest.mark.parametrize("right", [False, True])
def test_bucketize(right):
    b = np.array([1.0, 2.5, 4.0])
    x = np.array([[0.0, 1.0, 2.5], [3.0, 4.0, 5.0]])
    # torch.bucketize(x, b, right) == np.searchsorted(b, x, side='right' if right else 'left')
    eq(td.bucketize(td.asarray(x), td.asarray(b), right=right),
       np.searchsorted(b, x, "right" if right else "left"))


# --- scatter_reduce, scatter of a value, index_put, unfold ----------------------------------
def scatter_reduce_ref(x, axis, index, src, reduce, include_self):
    out = x.astype(np.float64).copy()
    count = np.full(x.shape, 1 if include_self else 0)
    for pos in np.ndindex(index.shape):
        tgt = list(pos)
        tgt[axis] = index[pos] % x.shape[axis]
        tgt = tuple(tgt)
        v = float(src[pos])
        if count[tgt] == 0:
            out[tgt] = v
        elif reduce in ("sum", "mean"):
            out[tgt] += v
        elif reduce == "prod":
            out[tgt] *= v
        elif reduce == "amax":
            out[tgt] = max(out[tgt], v)
        else:
            out[tgt] = min(out[tgt], v)
        count[tgt] += 1
    if reduce == "mean":
        out = np.where(count > 1, out / np.maximum(count, 1), out)
    return out


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce(reduce, include_self):
    rng = np.random.default_rng(3)
    x = rng.uniform(-2, 2, (4, 3))
    index = rng.integers(-4, 4, (6, 3))
    src = rng.uniform(-2, 2, (6, 3))
    got = td.scatter_reduce(td.asarray(x), 0, td.asarray(index), td.asarray(src), reduce,
                            include_self=include_self)
    np.testing.assert_allclose(got.numpy(), scatter_reduce_ref(x, 0, index, src, reduce,
                                                               include_self), rtol=1e-12)


def test_scatter_reduce_errors():
    x = td.asarray(np.zeros(3))
    with pytest.raises(ValueError, match="reduce"):
        td.scatter_reduce(x, 0, td.asarray([0]), td.asarray([1.0]), "median")
    with pytest.raises(TypeError):
        td.scatter_reduce(x, 0, td.asarray([0.0]), td.asarray([1.0]), "sum")
    with pytest.raises(td.TensorError, match="out of bounds"):
        td.scatter_reduce(x, 0, td.asarray([3]), td.asarray([1.0]), "sum").numpy()


def test_scatter_value():
    x = np.zeros((3, 4), np.float32)
    index = np.array([[0, 3], [2, 2], [1, 0]])
    want = x.copy()
    np.put_along_axis(want, index, 7.5, axis=1)
    eq(td.scatter(td.asarray(x), 1, td.asarray(index), 7.5), want)


@pytest.mark.parametrize("accumulate", [False, True])
def test_index_put_integer(accumulate):
    x = np.arange(12, dtype=np.float64).reshape(4, 3)
    rows = np.array([[0], [3]])
    cols = np.array([0, 2, 2])  # duplicates: (0,2) and (3,2) twice
    vals = np.arange(6, dtype=np.float64).reshape(2, 3) + 100
    want = x.copy()
    if accumulate:
        np.add.at(want, (rows, cols), vals)
    else:
        want[rows, cols] = vals  # NumPy: the last write wins too
    got = td.index_put(td.asarray(x), [td.asarray(rows), td.asarray(cols)], td.asarray(vals),
                       accumulate=accumulate)
    eq(got, want)


def test_index_put_mask_and_errors():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    mask = x % 2 == 0
    want = x.copy()
    want[mask] = [10, 20, 30]
    eq(td.index_put(td.asarray(x), [td.asarray(mask)], td.asarray(np.float32([10, 20, 30]))), want)
    with pytest.raises(td.TensorError, match="out of bounds"):
        td.index_put(td.asarray(x), [td.asarray([5])], td.asarray(np.float32(1))).numpy()
    with pytest.raises(td.TensorError):  # 3 selected, 2 values
        td.index_put(td.asarray(x), [td.asarray(mask)], td.asarray(np.float32([1, 2]))).numpy()


@pytest.mark.parametrize("shape,axis,size,step", [((10,), 0, 3, 2), ((3, 7), 1, 7, 1),
                                                  ((4, 5), 0, 0, 3), ((5, 2), -2, 2, 2)])
def test_unfold(shape, axis, size, step):
    a = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    want = np.lib.stride_tricks.sliding_window_view(a, size, axis=axis)
    axis %= len(shape)
    want = np.take(want, np.arange(0, want.shape[axis], step), axis=axis)
    eq(td.asarray(a).unfold(axis, size, step), want)
    eq(td.unfold(td.asarray(a), axis, size, step), want)
    with pytest.raises(ValueError):
        td.asarray(a).unfold(axis, shape[axis] + 1, 1)


# --- data-dependent output shapes -------------------------------------------------------------
def test_nonzero_shape_is_none_until_synced():
    a = np.array([[0, 1.5, 0], [2, 0, -3]], np.float32)
    idx = td.argwhere(td.asarray(a))
    assert idx.shape == (None, 2)
    assert idx.size is None
    y = td.astype(idx * 2 + 1, td.float32)  # later ops consume it before any sync
    assert y.shape == (None, 2)
    total = td.sum(y)
    assert total.shape == ()
    td.sync(total, y, idx)  # one run
    assert idx.shape == (3, 2) and y.shape == (3, 2)
    eq(idx, np.argwhere(a))
    assert float(total) == float(np.sum(np.argwhere(a) * 2 + 1))


def test_nonzero_all_zero_and_0d():
    z = td.argwhere(td.asarray(np.zeros((2, 3))))
    eq(z, np.zeros((0, 2), np.int64))  # nonzero of an all-zero (2, 3) tensor: shape (0, 2)
    assert len(z) == 0
    eq(td.argwhere(td.asarray(np.float32(4))), np.zeros((1, 0), np.int64))
    with pytest.raises(ValueError):
        td.nonzero(td.asarray(np.float32(4)))


@pytest.mark.parametrize("shape", [(5,), (3, 4), (2, 0, 3), (2, 3, 4)])
def test_nonzero_and_where_tuple(shape):
    rng = np.random.default_rng(sum(shape))
    a = rng.integers(-1, 2, shape).astype(np.int32)
    got = td.nonzero(td.asarray(a))
    want = np.nonzero(a)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        eq(g, w)
    for g, w in zip(td.where(td.asarray(a)), np.where(a)):
        eq(g, w)
    eq(td.flatnonzero(td.asarray(a)), np.flatnonzero(a))


def test_masked_select():
    a = np.arange(12, dtype=np.float64).reshape(3, 4)
    m = np.array([True, False, False, True])
    eq(td.masked_select(td.asarray(a), td.asarray(m)), a[np.broadcast_to(m, a.shape)])
    with pytest.raises(TypeError):
        td.masked_select(td.asarray(a), td.asarray(a))


@pytest.mark.parametrize("dtype", [np.int8, np.int64, np.float32, np.float64])
def test_unique(dtype):
    a = np.array([[3, 1, 3], [0, -2, 1], [3, 3, 0]], dtype)
    eq(td.unique_values(td.asarray(a)), np.unique(a))
    values, counts = td.unique_counts(td.asarray(a))
    w_values, w_counts = np.unique(a, return_counts=True)
    eq(values, w_values)
    eq(counts, w_counts)
    values, inverse = td.unique_inverse(td.asarray(a))
    assert values.shape == (None,)
    eq(values[inverse], a)  # index a data-dependent array (not synced) by a static one
    _, w_inverse = np.unique(a, return_inverse=True)
    eq(inverse, w_inverse.reshape(a.shape))  # synced by the same run: one unique node


def test_unique_nan_and_empty():
    a = np.array([np.nan, 1.0, np.nan, -0.0, 0.0])
    eq(td.unique_values(td.asarray(a)), np.unique(a, equal_nan=False))  # NaNs distinct
    eq(td.unique_values(td.asarray(np.zeros((0, 3)))), np.zeros(0))


def test_repeat_with_counts():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    eq(td.repeat(td.asarray(a), td.asarray([2, 0, 1]), axis=1), np.repeat(a, [2, 0, 1], axis=1))
    eq(td.repeat(td.asarray(a), td.asarray(2)), np.repeat(a, 2))
    with pytest.raises(td.TensorError, match="negative"):
        td.repeat(td.asarray(a), td.asarray([1, -1]), axis=0).numpy()


def test_boolean_indexing():
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    x = td.asarray(a)
    m2 = a[..., 0] % 8 == 0          # over the leading two axes
    m3 = a % 3 == 0                  # full rank
    eq(x[td.asarray(m2)], a[m2])
    eq(x[m3], a[m3])                 # a NumPy mask works too
    eq(x[m2, ...], a[m2, ...])
    eq(x[x > 10], a[a > 10])
    eq(x[np.zeros((2, 3), bool)], a[np.zeros((2, 3), bool)])  # (0, 4)
    s = td.asarray(np.float32(5))
    eq(s[s > 1], np.float32(5)[np.float32(5) > 1])  # 0-d mask: (1,)
    picked = x[x > 20]
    assert picked.shape == (None,)
    assert len(picked) == 3
    assert picked.shape == (3,)


def test_boolean_assignment():
    a = np.arange(12, dtype=np.float64).reshape(3, 4)
    x = td.asarray(a)
    want = a.copy()
    want[want > 6] = -1
    x[x > 6] = -1                      # scalar: where
    eq(x, want)
    rows = np.array([True, False, True])
    want[rows] = [0.5, 1.5, 2.5, 3.5]  # broadcast over the selected rows
    x[rows] = [0.5, 1.5, 2.5, 3.5]
    eq(x, want)
    sel = want < 2
    want[sel] = np.arange(sel.sum())   # one value per selected element
    x[td.asarray(sel)] = td.asarray(np.arange(sel.sum(), dtype=np.float64))
    eq(x, want)
    i = td.asarray(np.int32([7]))
    i[i > 0] = 2.9                     # cast to the array's dtype
    eq(i, np.int32([2]))
    y = td.asarray(np.zeros(4))
    with pytest.raises(ValueError):  # 2 selected, 3 values: a NumPy mask is checked at the call
        y[np.array([True, False, True, False])] = np.ones(3)
    with pytest.raises(td.TensorError, match="index_put"):  # a td.Array mask when it runs
        y[td.asarray(np.array([True, False, True, False]))] = np.ones(3)
        y.numpy()


def test_integer_array_assignment():
    a = np.zeros((3, 4), np.float32)
    x = td.asarray(a)
    x[[0, 2]] = 1.0
    a[[0, 2]] = 1.0
    eq(x, a)
    x[[0, 1, 1], [3, 2, 2]] = [5.0, 6.0, 7.0]
    a[[0, 1, 1], [3, 2, 2]] = [5.0, 6.0, 7.0]
    eq(x, a)
    with pytest.raises(IndexError, match="out of bounds"):  # a NumPy index: at the call
        x[[5]] = 1.0
    with pytest.raises(td.TensorError, match="out of bounds"):  # a td.Array index: when it runs
        x[td.asarray([5])] = 1.0
        x.numpy()


def test_data_dependent_sizes_reach_repr_and_numpy():
    x = td.asarray(np.array([0.0, 2.0, 0.0, 3.0]))
    nz = x[x != 0]
    assert "shape=(2,)" in repr(nz)
    eq(np.asarray(x[x > 9]), np.zeros(0))


# --- bincount ----------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int32, np.int64, np.bool_])
def test_bincount_counts_like_numpy(dtype):
    x = np.random.default_rng(3).integers(0, 2 if dtype == np.bool_ else 40, 1000).astype(dtype)
    eq(td.bincount(td.asarray(x)), np.bincount(x))
    eq(td.bincount(td.asarray(x), minlength=64), np.bincount(x, minlength=64))


def test_bincount_weights_minlength_and_empty():
    x = np.array([0, 1, 1, 3, 2, 1, 7])
    w = np.array([0.3, 0.5, 0.2, 0.7, 1.0, -0.6, 0.1], np.float32)
    got = td.bincount(td.asarray(x), weights=td.asarray(w), minlength=10)
    assert got.dtype == td.float64
    np.testing.assert_allclose(np.asarray(got), np.bincount(x, w, 10), rtol=1e-6)
    eq(td.bincount(td.asarray(np.array([], np.int64)), minlength=3), np.zeros(3, np.int64))
    eq(td.bincount(td.asarray(np.array([], np.int64))), np.zeros(0, np.int64))


def test_bincount_of_a_data_dependent_length():
    v = np.array([5, -1, 2, 2, -3, 0])
    a = td.asarray(v)
    eq(td.bincount(a[a >= 0]), np.bincount(v[v >= 0]))


def test_bincount_errors():
    with pytest.raises(ValueError, match="1-D"):
        td.bincount(td.asarray(np.zeros((2, 2), np.int64)))
    with pytest.raises(TypeError, match="integers"):
        td.bincount(td.asarray(np.zeros(3, np.float32)))
    with pytest.raises(ValueError, match="non-negative values, got -2"):
        td.bincount(td.asarray(np.array([1, -2, 3])))
    with pytest.raises(ValueError, match="minlength"):
        td.bincount(td.asarray(np.array([1])), minlength=-1)
    with pytest.raises(ValueError, match="weights"):
        td.bincount(td.asarray(np.array([1, 2])), weights=td.asarray(np.ones(3)))
