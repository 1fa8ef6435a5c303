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
    with pytest.raises(NotImplementedError, match="indexing"):
        x[td.asarray([0, 1])]
    with pytest.raises(NotImplementedError, match="indexing"):
        x[np.array([True, False, True])]
