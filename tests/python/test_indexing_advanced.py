"""NumPy's advanced indexing rules, reading (x[key]) and assigning (x[key] = v), against NumPy:
boolean masks mixed with other indices, None beside index arrays, td.Array indices mixed with
integers, slices and host arrays, 0-d integer and boolean indices, negative indices and steps,
broadcast index arrays, adjacent and separated index arrays, zero-size and 0-d arrays."""
import numpy as np
import pytest

import tensord as td

M3 = np.array([True, False, True])
M4 = np.array([True, False, True, True])
M5 = np.array([False, True, True, False, True])
M45 = np.arange(20).reshape(4, 5) % 3 == 0
M34 = np.arange(12).reshape(3, 4) % 5 != 1

# Keys into a (3, 4, 5) array.
KEYS = [
    # a mask mixed with other indices
    (M3, slice(1, 3)), (0, M4), (Ellipsis, M5), (M3, 1), (M3, slice(None), [1, 2]),
    (slice(1, None), M45), (0, M45), (M3, [0, 1]), (M3, None, 1), (M34, slice(None, None, -2)),
    (M34, [4]), (slice(None, None, -1), M4, 3), (M3, Ellipsis, M5 & (np.arange(5) > 1)),
    # None beside index arrays (None separates the arrays on either side of it)
    (None, [0, 1]), ([0, 1], None, [1, 2]), (None, [0, 1], [1, 2]), (Ellipsis, None, [0, -1]),
    ([[0], [2]], None, slice(1, 3), [1, 3]),
    # adjacent vs separated index arrays (integers count as 0-d index arrays)
    ([0, 1], Ellipsis, [1, 2]), ([[0], [2]], slice(None), [1, 3]), (1, slice(None), [0, 4]),
    (slice(None), [1, 2], [[0], [4]]), ([2, 0], 1, slice(None)),
    # booleans and 0-d index arrays
    (True,), (False,), (True, [0, 1]), ([0, 1], True), (0, True, 1), (np.True_, 2),
    (np.array(1), slice(None), np.array(2)), (np.array(1),), (np.array(True), 1),
    (False, 1, slice(None)),
    # negative indices and steps, broadcasting
    (np.array([[-1, 0]]), slice(None, None, -1)),
    (slice(None, None, -2), [1, -1], slice(3, None, -3)),
    ([[-3], [2]], [[0, -4]], [-5]), ([0, 0, 2], [-1, -1, 0]),
    # zero-size selections
    (np.zeros(3, bool), 0), (np.zeros(0, np.int64), slice(None), 1), ([], [], 0),
    (slice(2, 2), [1, 3]), (np.zeros((1, 0), np.int64), M4 & (np.arange(4) == 2)),
]


def as_device(key):
    """The key with its arrays (masks included) as td.Arrays ([] as an empty int64 array)."""
    def device(k):
        a = np.asarray(k)
        return td.asarray(a.astype(np.int64) if a.size == 0 and a.dtype.kind == "f" else a)
    return tuple(device(k) if isinstance(k, (np.ndarray, list)) else k for k in key)


def as_lists(key):
    return tuple(k.tolist() if isinstance(k, np.ndarray) and k.size else k for k in key)


FORMS = {"numpy": lambda k: k, "lists": as_lists, "tensord": as_device}
DTYPES = [np.float32, np.int8, np.float64, np.bool_, np.uint8]


def eq(got, want):
    got = np.asarray(got)
    assert got.shape == np.shape(want) and got.dtype == np.asarray(want).dtype
    np.testing.assert_array_equal(got, want)


def sample(dtype, shape=(3, 4, 5)):
    a = np.arange(int(np.prod(shape))).reshape(shape) % 97 - 40
    return (a % 2 == 0) if dtype is np.bool_ else a.astype(dtype)


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("key", KEYS, ids=repr)
def test_read(key, form):
    a = sample(np.float32)
    eq(td.asarray(a)[FORMS[form](key)], a[key])


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.__name__)
@pytest.mark.parametrize("key", [(M3, 1), ([0, 1], None, [1, 2]), (True, [0, 1]),
                                 (slice(None), M4, [[0], [4]])], ids=repr)
def test_read_dtypes(key, dtype):
    a = sample(dtype)
    eq(td.asarray(a)[key], a[key])
    eq(td.asarray(a)[as_device(key)], a[key])


def test_read_bfloat16():
    a = sample(np.float32)  # small integers: exact in bfloat16
    x = td.asarray(a, dtype=td.bfloat16)
    key = (M3, None, [3, 0])
    y = x[as_device(key)]
    assert y.dtype is td.bfloat16
    eq(y, a[key])  # numpy() widens bfloat16 to float32


@pytest.mark.parametrize("shape,key", [
    ((0, 3), ([],)), ((0, 3), (slice(None), [2, -1])), ((2, 0, 4), (M3[:2], slice(None), 1)),
    ((2, 0, 4), (slice(None), np.zeros(0, bool), [[0], [3]])), ((3, 0), (M3,)),
    ((2, 0, 4), ([1], slice(None), [[2], [3]])), ((0,), (np.zeros(0, bool),)),
    ((0, 2), (Ellipsis, [1, 0], None)),
], ids=repr)
def test_read_zero_size(shape, key):
    a = np.zeros(shape, np.float32)
    for form in FORMS.values():
        eq(td.asarray(a)[form(key)], a[key])


@pytest.mark.parametrize("key", [(True,), (False,), (None, True), (np.array(True),),
                                 (Ellipsis, False), (True, None), (np.False_, Ellipsis)], ids=repr)
def test_read_0d(key):
    a = np.array(7.5, np.float32)
    eq(td.asarray(a)[key], a[key])
    eq(td.asarray(a)[as_device(key)], a[key])


def test_device_mask_keeps_its_count_unknown():
    a = sample(np.float32)
    x = td.asarray(a)
    m = td.asarray(M4)
    y = x[:, m, 1:3]
    assert y.shape == (3, None, 2)  # recorded, the count known once it runs
    z = x[0, m]
    assert z.shape == (None, 5)
    w = x[None, 2, td.flatnonzero(m)]  # a data-dependent integer index works the same way
    assert w.shape == (1, None, 5)
    td.sync(y, z, w)
    assert y.shape == (3, 3, 2)
    eq(y, a[:, M4, 1:3])
    eq(z, a[0, M4])
    eq(w, a[None, 2, M4])
    # Beside a non-0-d index array the count must broadcast: it is learned first (a sync).
    eq(x[td.asarray(M3), [0, 3]], a[M3, [0, 3]])


def test_tensord_index_mixed_with_host_indices():
    a = sample(np.int8)
    x = td.asarray(a)
    i = np.array([[2, -1], [0, 1]])
    eq(x[td.asarray(i), 1:4, 0], a[i, 1:4, 0])
    eq(x[1, td.asarray(i)], a[1, i])
    eq(x[td.asarray(i), [[0], [3]]], a[i, [[0], [3]]])
    eq(x[::-1, td.asarray(np.uint8(3)), td.asarray(i.astype(np.int32))],
       a[::-1, np.uint8(3), i.astype(np.int32)])
    eq(x[td.asarray(2)], a[2])


# --- assignment -------------------------------------------------------------------------------
ASSIGN_KEYS = KEYS + [
    ([0, 0, 2], [1, 1, 1]),  # repeated targets: the last write wins, as in NumPy
    ([[1, 1], [1, 1]], slice(None), [0, 0]),
]


def values_for(a, key):
    """A scalar, an array of x[key]'s shape and one that broadcasts to it."""
    shape = a[key].shape
    full = (np.arange(int(np.prod(shape))).reshape(shape) + 100).astype(a.dtype)
    values = [np.array(-3).astype(a.dtype)[()], full]
    if len(shape) >= 1 and full.size > 0:
        values.append(full[(0,) * (len(shape) - 1)][None, None])  # (1, 1, n): leading 1s drop
    return values


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("key", ASSIGN_KEYS, ids=repr)
def test_assign(key, form):
    a = sample(np.float32)
    for value in values_for(a, key):
        want = a.copy()
        try:
            want[key] = value
        except (TypeError, ValueError) as e:  # NumPy's own refusals: the same exception
            with pytest.raises(type(e)):
                x = td.asarray(a)
                x[FORMS[form](key)] = value
            continue
        x = td.asarray(a)
        same = x
        x[FORMS[form](key)] = value
        eq(x, want)
        eq(same, want)  # the handle is rebound: it names the new value


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.__name__)
@pytest.mark.parametrize("key", [(M3, 1), (0, M4), ([0, 1], None, [1, 2]), (slice(None), [2, 0]),
                                 (M34, slice(None, None, -2))], ids=repr)
def test_assign_dtypes(key, dtype):
    a = sample(dtype)
    for value in values_for(a, key):
        want = a.copy()
        want[key] = value
        for form in (FORMS["numpy"], as_device):
            x = td.asarray(a)
            x[form(key)] = value
            eq(x, want)


def test_assign_casts_and_bfloat16():
    a = sample(np.int32)
    x = td.asarray(a)
    x[M3, 0] = 2.9  # cast to int32, as NumPy does
    want = a.copy()
    want[M3, 0] = 2.9
    eq(x, want)
    b = td.asarray(sample(np.float32), dtype=td.bfloat16)
    b[td.asarray(M3), None, [1, 2]] = td.asarray(np.float32([[[5]], [[6]]]))
    want = sample(np.float32)
    want[M3, None, [1, 2]] = [[[5]], [[6]]]
    assert b.dtype is td.bfloat16
    eq(b, want)


@pytest.mark.parametrize("shape,key", [
    ((0, 3), ([], 1)), ((2, 0, 4), (M3[:2], slice(None), 1)), ((3, 0), (M3,)),
    ((2, 0, 4), ([1], slice(None), [[2], [3]])), ((), (True,)), ((), (False,)),
    ((), (None, np.array(True))), ((4,), (np.array(True), slice(None, None, -1))),
], ids=repr)
def test_assign_zero_size_and_0d(shape, key):
    a = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    for value in (-1.0, np.ones(a[key].shape)):
        want = a.copy()
        want[key] = value
        for form in (FORMS["numpy"], as_device):
            x = td.asarray(a)
            x[form(key)] = value
            eq(x, want)


def test_assign_through_device_mask_needs_no_sync():
    a = sample(np.float64)
    x = td.asarray(a)
    m = td.asarray(M4)
    runs = td.session().stats().runs
    x[1, m] = np.arange(5.0)  # (count, 5) from (5,): the count stays unknown
    x[:, m, -1] = td.asarray(np.float64([[1], [2], [3]]))
    x[2, m, 1:] = 0.5  # a scalar: where through the mask
    assert td.session().stats().runs == runs  # recorded only: nothing ran
    want = a.copy()
    want[1, M4] = np.arange(5.0)
    want[:, M4, -1] = [[1], [2], [3]]
    want[2, M4, 1:] = 0.5
    eq(x, want)
    assert td.session().stats().runs == runs + 1
    # Beside a non-0-d index array the count is learned first: one more run.
    x[1:, m, [[0], [1]]] = -1.0
    want[1:, M4, [[0], [1]]] = -1.0
    eq(x, want)


def test_augmented_assignment():
    a = sample(np.float32)
    x = td.asarray(a)
    x[[0, 0, 2], 1] += 1  # NumPy's x[k] = x[k] + 1: a repeated target is incremented once
    x[td.asarray(M3), 1:3] *= 2
    want = a.copy()
    want[[0, 0, 2], 1] += 1
    want[M3, 1:3] *= 2
    eq(x, want)


class Position:
    """An integer-like index (NumPy takes any object with __index__)."""

    def __init__(self, value):
        self.value = value

    def __index__(self):
        return self.value


def test_index_objects_and_unsigned_wrap():
    a = sample(np.float32)
    x = td.asarray(a)
    eq(x[Position(1)], a[Position(1)])
    eq(x[Position(-1), [0, 2]], a[Position(-1), [0, 2]])
    big = np.array([2**64 - 1, 1], np.uint64)  # NumPy casts to int64: 2**64 - 1 is -1
    eq(x[:, big], a[:, big])
    x[Position(2), 1:3] = 9.0
    want = a.copy()
    want[Position(2), 1:3] = 9.0
    eq(x, want)
    with pytest.raises(IndexError, match="out of bounds"):
        x[[0], 2**70]
