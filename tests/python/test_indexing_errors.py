"""Bad indices: NumPy's exception at the indexing line (its file:line in the message) when the
index is a host value; td.TensorError naming the op and the recording line when the values
of a td.Array index are only known on the daemon."""
import inspect

import numpy as np
import pytest

import tensord as td

A = np.arange(60, dtype=np.float32).reshape(3, 4, 5)


def here():
    return f"{__file__}:{inspect.currentframe().f_back.f_lineno}"


@pytest.mark.parametrize("key,message", [
    (([0, 3],), "index 3 is out of bounds for axis 0 with size 3"),
    ((slice(None), [0, -5]), "index -5 is out of bounds for axis 1 with size 4"),
    ((None, 0, [[9]]), "index 9 is out of bounds for axis 1 with size 4"),  # x's axis, not t's
    ((np.array([True, False, True]), 1, [5]), "index 5 is out of bounds for axis 2 with size 5"),
    ((0, 4, [0]), "index 4 is out of bounds for axis 1 with size 4"),
    ((np.uint8(1), [[1, 2]], np.array([7], np.int8)), "index 7 is out of bounds for axis 2"),
])
def test_out_of_bounds_index_array_at_the_call(key, message):
    x = td.asarray(A)
    with pytest.raises(IndexError) as error:
        where = here(); x[key]  # noqa: E702
    assert message in str(error.value) and where in str(error.value)
    with pytest.raises(IndexError) as error:
        where = here(); x[key] = 1.0  # noqa: E702
    assert message in str(error.value) and where in str(error.value)
    with pytest.raises(IndexError):
        A[key]  # (NumPy refuses these too)


def test_index_into_an_empty_axis():
    x = td.asarray(np.zeros((2, 0)))
    with pytest.raises(IndexError, match="index 0 is out of bounds for axis 1 with size 0"):
        x[:, [0]]
    assert x[:, []].shape == (2, 0)


@pytest.mark.parametrize("key,message", [
    (lambda: (td.asarray([0, 3]),), "index 3 is out of bounds for axis 0 with size 3"),
    (lambda: (None, 1, td.asarray([[-5]])), "index -5 is out of bounds for axis 1 with size 4"),
    (lambda: (td.asarray([1]), slice(None), td.asarray(np.int32([6]))),
     "index 6 is out of bounds for axis 2 with size 5"),
])
def test_out_of_bounds_tensord_index_when_it_runs(key, message):
    x = td.asarray(A)
    key = key()  # (td.Arrays need the test's session)
    where = here(); y = x[key]  # noqa: E702
    z = y + 1
    with pytest.raises(td.TensorError) as error:
        z.numpy()
    text = str(error.value)
    assert "index_select" in text and message in text and where in text


@pytest.mark.parametrize("key,message", [
    (lambda: (td.asarray([0, 3]), 1), "index 3 is out of bounds for axis 0 with size 3"),
    (lambda: (0, td.asarray([1, -7]), slice(1, 3)),
     "index -7 is out of bounds for axis 1 with size 4"),
])
def test_out_of_bounds_tensord_index_in_assignment(key, message):
    x = td.asarray(A)
    key = key()
    where = here(); x[key] = 2.0  # noqa: E702
    with pytest.raises(td.TensorError) as error:
        x.numpy()
    text = str(error.value)
    assert ("index_put" in text or "index_select" in text) and message in text and where in text


def test_mask_count_against_values_when_it_runs():
    x = td.asarray(A)
    m = td.asarray(np.array([True, False, True, True]))  # 3 selected
    where = here(); x[0, m] = np.ones((2, 5), np.float32)  # noqa: E702
    with pytest.raises(td.TensorError) as error:
        x.numpy()
    assert "index_put" in str(error.value) and where in str(error.value)
    y = td.asarray(A)
    with pytest.raises(ValueError):  # a NumPy mask: the count is known at the call
        y[0, m.numpy()] = np.ones((2, 5), np.float32)


@pytest.mark.parametrize("key,error,message", [
    (([0, 1], [0, 1, 2]), IndexError, "shape mismatch"),
    ((np.array([True, False, True]), [0, 1, 2, 3]), IndexError, "shape mismatch"),
    ((slice(None), np.array([True, False, True])), IndexError, "boolean index did not match"),
    ((np.ones((3, 5), bool),), IndexError, "boolean index did not match indexed array along "
     "dimension 1; dimension is 4 but corresponding boolean dimension is 5"),
    ((np.ones((3, 4), bool), 0, 0), IndexError, "too many indices"),
    (([0], Ellipsis, 1, Ellipsis), IndexError, "single ellipsis"),
    ((np.array([0.0]),), IndexError, "integers or booleans, not float64"),
    ((np.array([]),), IndexError, "not float64"),  # an empty float array (a list [] is fine)
    (lambda: (td.asarray([1.5]), 0), IndexError, "integers or booleans, not float32"),
    (([0], "a"), IndexError, "unsupported index"),
    (([0], slice(None, None, 0)), ValueError, "step cannot be zero"),
])
def test_bad_keys(key, error, message):
    x = td.asarray(A)
    key = key() if callable(key) else key
    with pytest.raises(error, match=message) as raised:
        where = here(); x[key]  # noqa: E702
    if error is IndexError:
        assert where in str(raised.value)
    with pytest.raises(error, match=message):
        x[key] = 1.0


def test_values_that_do_not_broadcast():
    x = td.asarray(A)
    with pytest.raises(ValueError, match="broadcast"):
        x[[0, 1], 1:] = np.ones((3, 3), np.float32)  # x[key] is (2, 3, 5)
    with pytest.raises(ValueError, match="broadcast"):
        x[None, [0]] = np.ones((2, 1, 1, 4, 5), np.float32)  # a leading dim not 1
    with pytest.raises(TypeError, match="0 or 1-dimensional"):  # NumPy's rule for a lone mask
        x[A > 3] = np.ones((1, 1), np.float32)
    with pytest.raises(TypeError):
        A.copy()[A > 3] = np.ones((1, 1), np.float32)
