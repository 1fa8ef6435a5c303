"""Errors point at the line that recorded the failing op: this file's own lines."""
import inspect

import numpy as np
import pytest

import tensord as td


def here():
    return f"{__file__}:{inspect.currentframe().f_back.f_lineno}"


def test_shape_error_at_record_time():
    a = td.asarray(np.zeros((2, 3), np.float32))
    b = td.asarray(np.zeros((4,), np.float32))
    with pytest.raises(ValueError) as error:
        where = here(); a + b  # noqa: E702
    message = str(error.value)
    assert "add" in message and where in message


def test_matmul_shape_error_names_the_line():
    a = td.ones((2, 3))
    with pytest.raises(ValueError) as error:
        where = here(); td.matmul(a, a)  # noqa: E702
    assert "matmul" in str(error.value) and where in str(error.value)


def test_dtype_error_is_a_type_error():
    b = td.asarray([True, False])
    with pytest.raises(TypeError) as error:
        where = here(); -b  # noqa: E702  (neg does not take bool)
    assert where in str(error.value)
    del b


def test_daemon_error_names_the_recording_line_not_the_sync_point():
    x = td.asarray(np.arange(4, dtype=np.float32))
    bad = td.asarray(np.array([0, 7], np.int64))
    where = here(); y = td.take(x, bad, axis=0)  # noqa: E702  (out of range: found by the daemon)
    z = y * 2
    with pytest.raises(td.TensorError) as error:
        z.numpy()
    message = str(error.value)
    assert "index_select" in message and where in message


def test_location_of_a_nested_helper_is_the_user_line():
    def helper(v):
        return v + td.ones((5,))
    with pytest.raises(ValueError) as error:
        helper(td.ones((3,)))
    # The innermost frame outside the package: the helper's `return` line.
    assert f"{__file__}:{helper.__code__.co_firstlineno + 1}" in str(error.value)


def test_no_session_error_is_clear():
    import tensord._session as s
    saved = s.current.session
    s.current.session = None
    try:
        with pytest.raises(RuntimeError, match="connect"):
            td.zeros(3)
    finally:
        s.current.session = saved
