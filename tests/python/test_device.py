"""The session's device settings and figures from Python: td.memory_stats and
td.set_float32_matmul_precision, after torch."""
import numpy as np
import pytest

import tensord as td


def test_memory_stats_names_the_cpu_and_reports_only_its_host_cache():
    big = td.ones((512, 1024), dtype=td.float32) * 2  # 2 MiB: through the host block cache
    td.sync(big)
    stats = td.memory_stats()
    assert stats["device"] == "cpu"
    assert stats["host_cache.hits"] + stats["host_cache.misses"] >= 1
    assert stats["host_cache.cached_bytes"] >= 0
    # No caching allocator on the CPU: none of torch's allocator keys is made up.
    assert not any(k.startswith(("allocated_bytes", "reserved_bytes")) for k in stats)
    assert "num_ooms" not in stats
    assert td.memory_stats(0)["device"] == "cpu"  # by index into td.info()["devices"]
    assert td.memory_stats("cpu")["device"] == "cpu"  # by name


def test_memory_stats_of_a_device_the_daemon_lacks_is_an_error():
    with pytest.raises(ValueError, match="cuda:3"):
        td.memory_stats("cuda:3")
    with pytest.raises(ValueError, match="has no device 5"):
        td.memory_stats(5)


def test_float32_matmul_precision_round_trips_and_bad_values_are_refused():
    assert td.get_float32_matmul_precision() == "highest"
    try:
        for p in ("high", "medium", "highest", "medium"):
            td.set_float32_matmul_precision(p)
            assert td.get_float32_matmul_precision() == p
        with pytest.raises(td.TensorError, match="highest, high or medium"):
            td.set_float32_matmul_precision("fast")
        with pytest.raises(TypeError):
            td.set_float32_matmul_precision(32)
        assert td.get_float32_matmul_precision() == "medium"
        # The CPU computes in float32 at every precision.
        a = td.asarray(np.array([[1, 2], [3, 4]], dtype=np.float32))
        np.testing.assert_array_equal((a @ a).numpy(), [[7, 10], [15, 22]])
    finally:
        td.set_float32_matmul_precision("highest")
