"""The Array API's unique_all, unique_counts, unique_inverse and unique_values (2023.12) against
NumPy's np.unique with return_index/return_inverse/return_counts (Debian's NumPy 1.24 has no
np.unique_all) and equal_nan=False, the standard's rule that every NaN is distinct."""
import numpy as np
import pytest

import tensord as td


def eq(got, want):
    got = np.asarray(got)
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    np.testing.assert_array_equal(got, want)


def numpy_unique_all(a):
    values, indices, inverse, counts = np.unique(a, return_index=True, return_inverse=True,
                                                 return_counts=True, equal_nan=False)
    return values, indices.astype(np.int64), inverse.reshape(a.shape), counts.astype(np.int64)


CASES = [
    np.array([[3, 1, 3], [0, -2, 1], [3, 3, 0]], np.int32),
    np.array([3.0, np.nan, 1.0, 3.0, -0.0, 0.0, np.nan, 1.0]).reshape(2, 4),
    np.array([np.inf, -np.inf, np.nan, np.inf], np.float32),
    np.array([True, False, True]),
    np.array(7, np.int64),  # 0-d: one value, inverse 0-d
    np.zeros((0, 3)),
]


@pytest.mark.parametrize("a", CASES, ids=lambda a: f"{a.dtype}{a.shape}")
def test_unique_all_matches_numpy(a):
    got = td.unique_all(td.asarray(a))
    values, indices, inverse, counts = numpy_unique_all(a)
    eq(got.values, values)
    eq(got.indices, indices)
    eq(got.inverse_indices, inverse)
    eq(got.counts, counts)
    assert got.inverse_indices.shape == a.shape  # static: known before the sync


def test_one_node_feeds_every_function():
    a = np.array([2.0, np.nan, 2.0, 5.0, np.nan])
    x = td.asarray(a)
    values, counts = td.unique_counts(x)
    assert values.shape == (None,)  # data-dependent until synced
    want_values, _, want_inverse, want_counts = numpy_unique_all(a)
    eq(counts, want_counts)
    eq(values, want_values)
    values, inverse = td.unique_inverse(x)
    eq(inverse, want_inverse)
    eq(values[inverse], a)  # NaNs map to their own slots
    eq(td.unique_values(x), want_values)
    r = td.unique_all(x)
    eq(td.take(td.asarray(a), r.indices, axis=0), want_values)  # first occurrences


def test_unique_all_of_a_pending_result():
    x = td.asarray(np.array([1, 4, 1, 9], np.int64)) * 2  # not synced yet
    r = td.unique_all(x)
    eq(r.values, np.array([2, 8, 18], np.int64))
    eq(r.indices, np.array([0, 1, 3], np.int64))
