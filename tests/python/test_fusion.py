"""Fusion from Python: compile modes, explain, kernel cache statistics."""
import numpy as np
import pytest

import tensord as td


def _graph():
    x = td.asarray(np.linspace(-2, 2, 600, dtype=np.float32).reshape(6, 100))
    y = td.tanh(td.exp(-x * x) * 2 + 1) * 0.5 - td.sqrt(td.abs(x))
    return td.exp(y) / td.sum(td.exp(y), axis=-1, keepdims=True)


def test_explain_and_modes_agree():
    td.set_compile_mode("default")
    e = td.explain(_graph())
    assert e.mode == "default"
    assert len(e.groups) >= 1
    assert "exp" in e.groups[0].ops
    assert not e.captured
    assert "fused groups" in str(e)
    fused = _graph().numpy()
    td.set_compile_mode("eager")
    try:
        assert td.explain(_graph()).groups == []
        eager = _graph().numpy()
    finally:
        td.set_compile_mode("default")
    np.testing.assert_allclose(fused, eager, rtol=1e-5, atol=1e-6)
    stats = td.kernel_cache_stats()
    assert stats["compile_mode"] == "default"
    assert stats["misses"] + stats["disk_hits"] + stats["memory_hits"] >= 1
    [host] = stats["caches"]  # a CPU daemon: the host's cache only
    assert host["target"] == "host" and host["misses"] == stats["misses"]


def test_unknown_mode_is_an_error():
    with pytest.raises(td.TensorError, match="turbo"):
        td.set_compile_mode("turbo")
    assert td.kernel_cache_stats()["compile_mode"] == "default"


def test_explain_needs_arrays():
    with pytest.raises(ValueError):
        td.explain()


def test_explain_shows_the_segments_of_a_data_dependent_graph():
    x = td.asarray(np.array([[0.0, 1.0, -2.0], [3.0, 0.0, 4.0]], dtype=np.float32))
    picked = td.nonzero(td.exp(-x) * 2 > 0.5)[0]
    text = str(td.explain(td.sum(picked)))
    assert "runs in 2 segments" in text
    # Python's nonzero is one flatnonzero (then index arithmetic): that node ends segment 0.
    assert "(flatnonzero): planned now" in text
    assert "(flatnonzero), to the outputs: planned at run time" in text
    assert "group 0: neg exp mul gt" in text
    assert td.sum(picked).numpy() == np.sum(np.nonzero(np.exp(-x.numpy()) * 2 > 0.5)[0])
