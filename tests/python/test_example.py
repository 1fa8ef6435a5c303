"""The example of issue 3, as a user writes it."""
import numpy as np

import tensord as td


def test_issue_example():
    x_np = np.random.default_rng(1).random((512, 256)).astype(np.float32)
    x = td.asarray(x_np)
    w = td.random.normal(size=(256, 10), seed=0)
    p = td.softmax(x @ w, axis=-1)
    assert p.shape == (512, 10) and p.dtype is td.float32
    text = repr(p[:2])
    assert "shape=(2, 10)" in text and "dtype=float32" in text
    got = np.asarray(p)
    w_np = w.numpy()
    logits = x_np.astype(np.float64) @ w_np.astype(np.float64)
    want = np.exp(logits - logits.max(axis=-1, keepdims=True))
    want /= want.sum(axis=-1, keepdims=True)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-6)


def test_random_is_seeded():
    a = td.random.normal(size=(3, 4), seed=7).numpy()
    b = td.random.normal(size=(3, 4), seed=7).numpy()
    np.testing.assert_array_equal(a, b)
    u = td.random.uniform(low=2.0, high=5.0, size=(1000,), seed=3).numpy()
    assert u.min() >= 2.0 and u.max() < 5.0
    n = td.random.normal(loc=10.0, scale=0.5, size=(4000,), seed=3).numpy()
    assert abs(n.mean() - 10.0) < 0.05 and abs(n.std() - 0.5) < 0.05


def test_namespace_basics():
    x = td.asarray([[1.0, 2.0], [3.0, 4.0]])
    assert x.__array_namespace__() is td
    assert td.__array_api_version__ == "2023.12"
    assert x.ndim == 2 and x.size == 4 and len(x) == 2
    assert td.finfo(td.float32).eps == np.finfo(np.float32).eps
    assert td.finfo(td.bfloat16).bits == 16 and td.finfo(td.bfloat16).eps == 2.0 ** -7
    assert td.iinfo(td.int16).max == 32767 and td.iinfo(td.uint8).min == 0
    assert [list(r.numpy()) for r in x] == [[1.0, 2.0], [3.0, 4.0]]
    td.sync(x, x + 1)
    assert x._t.materialized


def test_in_place_operators_rebind():
    x = td.asarray([1.0, 2.0])
    y = x
    x += 1
    x *= 3
    assert x.numpy().tolist() == [6.0, 9.0]
    assert y.numpy().tolist() == [1.0, 2.0]  # the old value lives on in other handles


def test_info_reports_the_daemon_and_this_session():
    td.sync(td.ones((16,)) + 1)
    info = td.info()
    assert info["daemon_version"] and info["devices"][0]["kind"] == "cpu"
    assert info["session"]["runs"] >= 1


def test_dtype_functions():
    assert td.isdtype(td.int8, "integral") and td.isdtype(td.uint8, "unsigned integer")
    assert td.isdtype(td.float16, "real floating") and td.isdtype(td.float16, "numeric")
    assert not td.isdtype(td.bool, "numeric") and td.isdtype(td.bool, "bool")
    assert td.isdtype(td.float32, (td.float64, td.float32))
    assert td.result_type(td.uint8, td.int8) is td.int16
    assert td.result_type(td.asarray([1.0]), td.float64) is td.float64
    assert td.can_cast(td.int8, td.int32) and not td.can_cast(td.float64, td.float32)
