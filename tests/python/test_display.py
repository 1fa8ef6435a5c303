"""repr, notebook displays and td.info(): values like NumPy, shape, dtype, device; large
pending arrays are not evaluated by a notebook display."""
import os
import sys

import numpy as np

import tensord as td


class Printer:
    """The part of IPython's pretty printer _repr_pretty_ uses."""

    def __init__(self):
        self.out = ""

    def text(self, s):
        self.out += s


def test_repr_shows_values_shape_dtype_and_device():
    x = td.asarray(np.array([[1.5, 2.0], [3.0, 4.0]], np.float32))
    text = repr(x * 2)
    assert "[[3., 4.]," in text and "[6., 8.]]" in text
    assert "shape=(2, 2)" in text and "dtype=float32" in text and "device='cpu:0'" in text


def test_repr_summarises_like_numpy():
    text = repr(td.arange(100000, dtype=td.int32))
    assert "..." in text and "99999" in text and len(text) < 300


def test_repr_of_a_large_array_fetches_its_edges_only(monkeypatch):
    rng = np.random.default_rng(3)
    data = (rng.standard_normal((40, 7, 50)) * 1e3).astype(np.float32)
    data[0, 0, 0], data[-1, -1, -1] = np.nan, -np.inf
    x = td.asarray(data) * 1  # pending: repr is the sync point
    fetched = []
    numpy_of = td.Array.numpy

    def spy(a):
        out = numpy_of(a)
        fetched.append(out.size)
        return out

    monkeypatch.setattr(td.Array, "numpy", spy)
    text = repr(x)
    assert fetched == [6 * 6 * 6]
    expected = np.array2string(data, separator=", ", prefix="tensord.asarray(")
    assert text.startswith("tensord.asarray(" + expected + ", shape=(40, 7, 50)")


def test_repr_summarises_bool_and_small_axes_like_numpy():
    data = np.arange(5000).reshape(2, 2500) % 3 == 0
    assert repr(td.asarray(data)).startswith(
        "tensord.asarray(" + np.array2string(data, separator=", ", prefix="tensord.asarray("))


def test_device_object():
    x = td.ones((2,))
    assert str(x.device) == "cpu:0" and x.device == td.ones((3,)).device
    assert x.to_device(x.device) is x
    assert "cpu" in repr(x.device)


def test_displays_do_not_evaluate_large_pending_arrays():
    x = td.random.normal(size=(200, 200), seed=1) + 1
    html = x._repr_html_()
    p = Printer()
    x._repr_pretty_(p, False)
    assert "pending" in html and "pending" in p.out
    assert "shape=(200, 200)" in html and "device=cpu:0" in html
    assert not x._t.materialized
    td.sync(x)
    assert "pending" not in x._repr_html_()
    p = Printer()
    x._repr_pretty_(p, False)
    assert "pending" not in p.out and "..." in p.out


def test_displays_evaluate_small_arrays():
    y = td.asarray([1.0, 2.0]) * 3
    assert "6." in y._repr_html_()
    assert y._t.materialized


def test_html_escapes():
    assert "<" not in td.asarray([1.0])._repr_html_().split("<pre>")[1].split("</pre>")[0]


def test_info_shows_daemon_devices_and_memory():
    x = td.asarray(np.ones(1000, np.float32)) + 1
    td.sync(x)
    info = td.info()
    assert info["devices"][0]["kind"] == "cpu" and info["devices"][0]["name"]
    assert info["session"]["live_bytes"] >= 4000
    assert info["session"]["daemon_live_bytes"] >= info["session"]["live_bytes"]
    html = info._repr_html_()
    assert "device cpu:0" in html and "this session" in html and "whole daemon" in html


def test_info_says_which_line_holds_the_session_memory():
    line = sys._getframe().f_lineno + 1
    big = td.zeros((8 << 20,), dtype=td.float32) + 1  # 32 MiB, more than this session's others
    td.sync(big)
    info = td.info()
    first = info["session"]["holdings"][0]
    assert first == {"origin": f"{__file__}:{line} (add)", "bytes": 32 << 20, "tensors": 1}, info
    assert f"{os.path.basename(__file__)}:{line} (add) 32.0 MiB" in info._repr_html_()
