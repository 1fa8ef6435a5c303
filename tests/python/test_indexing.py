"""Basic indexing: integers, slices with steps, `...` and `None`, like NumPy."""
import numpy as np
import pytest

import tensord as td

A = np.arange(60, dtype=np.float32).reshape(3, 4, 5)

KEYS = [
    1, -1, (1, 2), (0, -1, 4), slice(1, 3), (slice(1, 3), slice(None, None, 2)),
    (slice(None), slice(None, None, -1)), (Ellipsis, 2), (None, 1), (1, None, slice(2, 4)),
    (slice(-2, None), Ellipsis, slice(None, None, 3)), (slice(10, 20),), (slice(3, 1),),
    (slice(None, None, -2), 0), (Ellipsis,), (),
]


@pytest.mark.parametrize("key", KEYS, ids=repr)
def test_basic_indexing(key):
    got = np.asarray(td.asarray(A)[key])
    want = A[key]
    assert got.shape == want.shape
    np.testing.assert_array_equal(got, want)


def test_issue_slice():
    x = td.asarray(A[0])
    np.testing.assert_array_equal(x[1:3, ::2].numpy(), A[0][1:3, ::2])


def test_index_errors():
    x = td.asarray(A)
    with pytest.raises(IndexError):
        x[3]
    with pytest.raises(IndexError):
        x[0, 0, 0, 0]
    with pytest.raises(ValueError):
        x[::0]
    with pytest.raises(IndexError, match="boolean index"):
        x[np.array([True, False, True, True, False])]  # wrong length


ADVANCED = [
    [0, 2], [[0, 2], [1, 1]], np.array([-1, 0]), ([0, 2], [1, 3]), ([0, 2], slice(1, 3)),
    (slice(None), [3, 0, 0]), (Ellipsis, [4, 0]), ([2, 0], slice(None), [4, 1]),
    (0, slice(None), [1, 2]), (slice(None), 0, [1, 2]), ([[0], [2]], [1, 3]), ([], ),
    (np.array([], np.int64), slice(1, 2)), ([1, 2], slice(None, None, -1), 0),
    (np.array([[1]], np.uint8), [[0, 1, 2]], [4]),
]


@pytest.mark.parametrize("key", ADVANCED, ids=repr)
def test_integer_array_indexing(key):
    got = np.asarray(td.asarray(A)[key])
    want = A[key]
    assert got.shape == want.shape
    np.testing.assert_array_equal(got, want)


def test_tensord_index_array():
    x = td.asarray(A)
    idx = td.asarray(np.array([[2, 0], [1, -1]], np.int64))
    np.testing.assert_array_equal(x[idx].numpy(), A[np.array([[2, 0], [1, -1]])])
    np.testing.assert_array_equal(x[:, td.asarray([3, 1])].numpy(), A[:, [3, 1]])
    with pytest.raises(td.TensorError, match="out of bounds"):
        x[td.asarray([5])].numpy()
    with pytest.raises(IndexError, match="integers"):
        x[td.asarray([0.5])]


def test_integer_array_index_errors():
    x = td.asarray(A)
    with pytest.raises(IndexError, match="out of bounds"):
        x[[0, 3]]
    with pytest.raises(IndexError, match="broadcast"):
        x[[0, 1], [0, 1, 2]]
    with pytest.raises(IndexError, match="integers"):
        x[[0.5]]


ASSIGN = [
    (0, 7.0), ((1, 2), -1.0), ((slice(1, 3), slice(None), 4), 5.0), ((Ellipsis, 0), 9.0),
    (slice(None), 0.0), ((slice(0, 2), 1), np.arange(5, dtype=np.float32)),
    ((-1, slice(-2, None)), np.ones((2, 5), np.float32) * 3), (slice(5, 9), 1.0),
    ((0, slice(3, 1)), 2.0), ((Ellipsis, slice(1, 4)), np.array([1, 2, 3], np.float32)),
]


@pytest.mark.parametrize("key,value", ASSIGN, ids=repr)
def test_item_assignment_rebinds(key, value):
    x = td.asarray(A)
    same = x  # the same handle: it sees the assignment, as with NumPy
    x[key] = value
    want = A.copy()
    want[key] = value
    np.testing.assert_array_equal(x.numpy(), want)
    np.testing.assert_array_equal(same.numpy(), want)


def test_item_assignment_keeps_other_handles_and_casts():
    x = td.asarray(np.zeros((2, 3), np.int32))
    row = x[0]
    x[0, 1] = 7.9  # cast to int32, as NumPy does
    x[1] = td.asarray(np.array([1, 2, 3], np.int64))
    np.testing.assert_array_equal(x.numpy(), [[0, 7, 0], [1, 2, 3]])
    np.testing.assert_array_equal(row.numpy(), [0, 0, 0])  # a value, not a view
    assert x.dtype is td.int32


def test_item_assignment_errors():
    x = td.asarray(A)
    with pytest.raises(IndexError, match="boolean index"):
        x[np.array([True, False])] = 1.0
    with pytest.raises(IndexError):
        x[3] = 1.0
    with pytest.raises(ValueError):
        x[0] = np.ones((3, 3), np.float32)  # does not broadcast to (4, 5)


@pytest.mark.parametrize("key", [np.s_[::2], np.s_[1::3, :], np.s_[:, ::-2], np.s_[1, 5:0:-2],
                                 np.s_[..., ::3], np.s_[2:2:2]])
def test_stepped_item_assignment_matches_numpy(key):
    a = np.arange(42, dtype=np.float32).reshape(6, 7)
    x = td.asarray(a)
    want = a.copy()
    region = want[key]
    value = np.arange(region.size, dtype=np.float32).reshape(region.shape) + 100
    want[key] = value
    x[key] = value
    np.testing.assert_array_equal(np.asarray(x), want)
    y = td.asarray(a)
    y[key] = -1.0  # a scalar broadcasts
    want2 = a.copy()
    want2[key] = -1.0
    np.testing.assert_array_equal(np.asarray(y), want2)
