"""Seeded random keys (integers, slices with any step, None, '...', booleans, masks and index
arrays of several dtypes, as NumPy arrays, lists or td.Arrays) on random shapes, some with
zero-size or no axes: reading and assigning must match NumPy, its errors included."""
import random

import numpy as np
import pytest

import tensord as td

DTYPES = [np.float32, np.int32, np.float64, np.int8, np.bool_]
INDEX_DTYPES = [np.int64, np.int32, np.int8, np.uint8]


def random_key(shape, r, rng):
    """A key for an array of `shape` (sometimes an invalid one, as NumPy would refuse)."""
    key, axis = [], 0
    batch = tuple(r.choice([1, 2, 3]) for _ in range(r.choice([0, 1, 2])))
    while axis < len(shape):
        u, n = r.random(), shape[axis]
        if u < 0.2:
            key.append(slice(r.choice([None, -2, 0, 1, 3]), r.choice([None, -1, 2, 5]),
                             r.choice([None, 1, 2, -1, -2])))
            axis += 1
        elif u < 0.3 and n > 0:
            key.append(r.randrange(-n, n))
            axis += 1
        elif u < 0.55:
            index = rng.integers(-n, n, size=batch) if n else np.zeros(batch + (0,), np.int64)
            dtype = r.choice(INDEX_DTYPES)
            if dtype is np.uint8:
                index = np.where(index < 0, index + n, index)
            if r.random() < 0.03:
                index = index + n  # out of bounds (unless empty)
            key.append(index.astype(dtype))
            axis += 1
        elif u < 0.7:
            k = 2 if axis + 1 < len(shape) and r.random() < 0.3 else 1
            key.append(rng.random(shape[axis:axis + k]) < 0.5)
            axis += k
        elif u < 0.75:
            key.append(r.choice([True, False, np.True_, np.array(False)]))
        elif u < 0.85:
            key.append(None)
        elif Ellipsis not in [k for k in key if not isinstance(k, np.ndarray)]:
            key.append(Ellipsis)
            break
        else:
            key.append(slice(None))
            axis += 1
    if r.random() < 0.1:
        key.append(None)
    return tuple(key)


def convert(key, r, device_share):
    """Each array of the key kept, as a list, or as a td.Array (by chance)."""
    out = []
    for k in key:
        if isinstance(k, np.ndarray) and k.ndim and r.random() < device_share:
            k = td.asarray(k)
        elif isinstance(k, np.ndarray) and k.size and r.random() < 0.3:
            k = k.tolist()
        out.append(k)
    return tuple(out)


def matches_error(got, want, device):
    """Our exception for NumPy's: the same type, or td.TensorError for what only the daemon
    can see (a td.Array's values)."""
    return type(got) is type(want) or (device and isinstance(got, td.TensorError))


@pytest.mark.parametrize("seed", range(6))
def test_random_keys_match_numpy(seed):
    r, rng = random.Random(seed), np.random.default_rng(seed)
    checked = 0
    for _ in range(120):
        shape = tuple(r.choice([0, 1, 2, 3, 4]) for _ in range(r.choice([0, 1, 2, 3])))
        dtype = r.choice(DTYPES)
        a = rng.integers(-50, 50, shape).astype(dtype)
        key = random_key(shape, r, rng)
        ours = convert(key, r, r.choice([0, 0.5, 1]))
        device = any(isinstance(k, td.Array) for k in ours)
        try:
            want = a[key]
        except (IndexError, ValueError, TypeError) as e:
            with pytest.raises(Exception) as raised:
                np.asarray(td.asarray(a)[ours])
            assert matches_error(raised.value, e, device), (shape, key, raised.value, e)
            continue
        got = np.asarray(td.asarray(a)[ours])
        assert got.shape == want.shape and np.array_equal(got, want), (shape, key)

        value = rng.integers(-9, 9, want.shape).astype(dtype)
        if r.random() < 0.3:
            value = dtype(7)
        elif r.random() < 0.3 and want.size:
            value = value[(0,) * r.randrange(0, want.ndim + 1)]  # broadcasts
            value = value[None] if np.ndim(value) and r.random() < 0.5 else value
        expected = a.copy()
        try:
            expected[key] = value
        except (IndexError, ValueError, TypeError) as e:
            with pytest.raises(Exception) as raised:
                x = td.asarray(a)
                x[ours] = value
                x.numpy()
            assert matches_error(raised.value, e, device), (shape, key, raised.value, e)
            continue
        x = td.asarray(a)
        x[ours] = value
        assert np.array_equal(np.asarray(x), expected), (shape, key, np.shape(value))
        checked += 1
    assert checked > 40  # most keys were valid ones
