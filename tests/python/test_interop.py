"""Values in and out: NumPy arrays, lists, scalars, every dtype, 0-d and zero-size."""
import numpy as np
import pytest

import tensord as td

NUMPY_DTYPES = [np.bool_, np.int8, np.uint8, np.int16, np.int32, np.int64, np.float16,
                np.float32, np.float64]
SHAPES = [(), (0,), (3, 0), (1,), (7,), (2, 3, 5)]


def random_values(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        return rng.integers(max(info.min, -100), min(info.max, 100), shape, endpoint=True).astype(dtype)
    return (rng.standard_normal(shape) * 3).astype(dtype)


@pytest.mark.parametrize("dtype", NUMPY_DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_round_trip(dtype, shape):
    a = random_values(shape, dtype)
    x = td.asarray(a)
    assert x.shape == shape and x.dtype.numpy_dtype == np.dtype(dtype)
    out = np.asarray(x)
    assert out.dtype == a.dtype and out.shape == shape
    np.testing.assert_array_equal(out, a)


def test_bfloat16_comes_back_as_float32():
    a = np.array([1.0, -2.5, 3.140625, 0.0], np.float32)  # exact in bfloat16
    x = td.asarray(a, dtype=td.bfloat16)
    assert x.dtype is td.bfloat16
    out = x.numpy()
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, a)


def test_lists_and_scalars():
    assert td.asarray(1.5).dtype is td.float32 and td.asarray(1.5).shape == ()
    assert td.asarray(3).dtype is td.int64
    assert td.asarray(True).dtype is td.bool
    x = td.asarray([[1, 2, 3], [4, 5, 6]])
    assert x.dtype is td.int64 and x.shape == (2, 3)
    assert x.numpy().tolist() == [[1, 2, 3], [4, 5, 6]]
    assert td.asarray([1.0, 2.0], dtype=td.float64).dtype is td.float64
    s = td.asarray(2.5)
    assert s.item() == 2.5 and float(s) == 2.5 and int(td.asarray(7)) == 7
    assert bool(td.asarray(True)) and not bool(td.asarray(0.0))
    with pytest.raises(ValueError):
        td.asarray([1.0, 2.0]).item()
    with pytest.raises(TypeError):
        len(td.asarray(1.0))
    with pytest.raises(TypeError):
        td.asarray(np.array([1, 2], np.uint32))


def test_creation():
    np.testing.assert_array_equal(td.zeros((2, 3)).numpy(), np.zeros((2, 3), np.float32))
    np.testing.assert_array_equal(td.ones(4, dtype=td.int32).numpy(), np.ones(4, np.int32))
    np.testing.assert_array_equal(td.full((2,), 7).numpy(), np.full((2,), 7, np.int64))
    np.testing.assert_array_equal(td.arange(5).numpy(), np.arange(5))
    np.testing.assert_array_equal(td.arange(1, 10, 3).numpy(), np.arange(1, 10, 3))
    np.testing.assert_array_equal(td.eye(3, 4, k=1).numpy(), np.eye(3, 4, k=1, dtype=np.float32))
    z = td.zeros_like(td.asarray([1, 2]))
    assert z.dtype is td.int64 and z.numpy().tolist() == [0, 0]


def test_numpy_operands():
    x = td.asarray(np.arange(3, dtype=np.float32))
    np.testing.assert_array_equal((x + np.float32(1)).numpy(), [1, 2, 3])
    np.testing.assert_array_equal((x * np.array([2, 2, 2], np.float32)).numpy(), [0, 2, 4])


def test_repr_html_does_not_sync_large_pending_arrays():
    x = td.random.normal(size=(100, 100), seed=0)
    assert "pending" in x._repr_html_()
    assert not x._t.materialized
    small = td.asarray([1.0, 2.0]) * 2
    assert "2." in small._repr_html_()


def test_dlpack_both_ways():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    x = td.from_dlpack(a)
    assert x.shape == (2, 3) and x.dtype is td.float32
    back = np.from_dlpack(x * 2)
    np.testing.assert_array_equal(back, a * 2)

    class Exporter:  # an object that is not a NumPy array but speaks DLPack
        def __init__(self, arr):
            self.arr = arr

        def __dlpack__(self, **kwargs):
            return self.arr.__dlpack__()

        def __dlpack_device__(self):
            return self.arr.__dlpack_device__()

    np.testing.assert_array_equal(td.asarray(Exporter(a)).numpy(), a)


@pytest.mark.parametrize("n", [1, 7, 5_000_001])  # the largest crosses the 16 MiB reply cap
def test_transfer_sizes(n):
    a = np.random.default_rng(n).standard_normal(n).astype(np.float32)
    x = td.asarray(a)
    np.testing.assert_array_equal(x.numpy(), a)
    np.testing.assert_array_equal((x + 0).numpy(), a)
