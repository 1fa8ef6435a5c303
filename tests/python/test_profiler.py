"""td.profile against the real daemon: the trace, its Chrome export, the table, the memory
timeline and the recommendations."""
import json
import os
import tempfile

import numpy as np

import tensord as td


def test_profile_exports_a_chrome_trace_with_the_users_lines():
    x = td.asarray(np.ones((32, 32), dtype=np.float32))
    with td.profile(memory=True) as prof:
        y = td.sum(x @ x)  # the line the steps must name
        assert float(y) == 32.0 * 32 * 32
    line = test_profile_exports_a_chrome_trace_with_the_users_lines.__code__.co_firstlineno + 3
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "trace.json")
        prof.export_chrome_trace(path)
        with open(path) as f:
            doc = json.load(f)
    events = doc["traceEvents"]
    steps = [e for e in events if e["ph"] == "X" and e.get("cat") == "step"]
    assert any(e["name"] == "matmul" for e in steps)
    for e in steps:
        assert e["args"]["source"].endswith(f"test_profiler.py:{line}")
    assert any(e["ph"] == "C" for e in events)  # memory counters
    assert prof.dropped == 0
    rows = prof.key_averages()
    matmul = [r for r in rows if r["key"] == "matmul"]
    assert matmul and matmul[0]["calls"] == 1 and matmul[0]["alloc_bytes"] > 0
    assert "matmul" in str(rows)
    points = prof.memory_timeline()
    if isinstance(points, tuple):  # matplotlib is installed: (points, figure)
        points = points[0]
    assert points and sum(points[-1][1].values()) >= 0


def test_a_profile_sees_a_tensor_held_from_before_it_go():
    with td.profile(memory=True):  # the daemon tracks what is allocated while memory is recorded
        held = td.ones((1 << 20,), dtype=td.float32) * 2.0  # 4 MiB
        td.sync(held)
    x = td.asarray(np.ones((8, 8), dtype=np.float32))
    size = 4 << 20
    with td.profile(memory=True) as prof:
        small = td.ones((16,), dtype=td.float32) * 2.0  # the same op as `held`'s, smaller
        td.sync(small)
        del held
        float(td.sum(x))  # the release goes out with the next request at the latest
    points = prof.memory_timeline()
    if isinstance(points, tuple):
        points = points[0]
    totals = [sum(by_category.values()) for _, by_category, _ in points]
    # Held when the profile began: the timeline starts with it and drops when it goes.
    assert max(totals) >= size, totals
    band = [by_category["held_before_profile"] for _, by_category, _ in points]
    assert band[0] >= size and band[-1] <= band[0] - size, band
    assert totals[-1] < size and totals[-1] <= max(totals) - size + 4096, totals
    # ... but it was not allocated during the profile.
    rows = prof.key_averages()
    assert any(r["alloc_bytes"] > 0 for r in rows), rows
    assert sum(r["alloc_bytes"] for r in rows) < size, rows


def test_the_memory_timeline_starts_from_what_the_session_held():
    # Made while no memory profile ran: the daemon's ledger never saw it, its account did.
    held = td.ones((1 << 20,), dtype=td.float32) * 3.0  # 4 MiB
    td.sync(held)
    line = test_the_memory_timeline_starts_from_what_the_session_held.__code__.co_firstlineno + 2
    size = 4 << 20
    with td.profile(memory=True) as prof:
        small = td.ones((256,), dtype=td.float32) * 2.0
        td.sync(small)
    before = prof.held_before()
    live = td.info()["session"]["live_bytes"]
    assert size <= before["bytes"] <= live, (before, live)
    top = before["holdings"][0]
    assert top["bytes"] == size and top["tensors"] == 1, before
    assert top["origin"].endswith(f"test_profiler.py:{line} (mul)"), top
    points = prof.memory_timeline()
    if isinstance(points, tuple):
        points = points[0]
    names = list(points[0][1])
    assert names[0] == "held_before_profile" and "tensor" in names, names
    # The band starts with the bytes held then and keeps the 4 MiB (a tensor of an earlier test
    # tracked by its memory profile may go meanwhile); the 1 KiB made during it stacks on it.
    band = [p[1]["held_before_profile"] for p in points]
    assert band[0] == before["bytes"] and min(band) >= size, band
    assert band == sorted(band, reverse=True), band
    assert max(p[1]["tensor"] for p in points) >= 1024
    assert max(sum(p[1].values()) for p in points) >= size + 1024
    del held


def test_recommendations_name_a_sync_inside_a_loop():
    x = td.asarray(np.arange(4, dtype=np.float32))
    with td.profile() as prof:
        for _ in range(25):
            float(td.sum(x + 1))  # a round trip per iteration
    rules = {r.rule for r in prof.recommendations()}
    assert "sync_in_loop" in rules
    good = td.asarray(np.ones((256, 256), dtype=np.float32))
    with td.profile() as quiet:
        acc = good
        for _ in range(50):
            acc = acc * 0.5 + good
        acc.numpy()
    assert quiet.recommendations() == []


def test_memory_snapshot_lists_segments_with_their_blocks_and_the_timeline_reserved():
    with td.profile(memory=True) as prof:
        big = td.ones((1 << 20,), dtype=td.float32) * 2.0  # 4 MiB: a host block cache segment
        big.numpy()
        snap = prof.memory_snapshot()
        inside = [b for s in snap["segments"] for b in s["blocks"]]
        assert any(b["size"] == 4 << 20 for b in inside)
        for s in snap["segments"]:
            assert s["allocated_size"] == sum(b["size"] for b in s["blocks"]) <= s["total_size"]
            for b in s["blocks"]:
                assert s["address"] <= b["address"] < s["address"] + s["total_size"]
                assert b["state"] == "active_allocated"
        del big
    points = prof.memory_timeline()
    if isinstance(points, tuple):
        points = points[0]
    assert all(len(p) == 3 for p in points)
    assert max(reserved for _, _, reserved in points) >= 4 << 20
    assert max(sum(by_category.values()) for _, by_category, _ in points) >= 4 << 20


def test_memory_timeline_by_category_and_snapshot_states():
    with td.profile(memory=True) as prof:
        big = td.ones((1 << 20,), dtype=td.float32) * 3.0  # 4 MiB: a host block cache segment
        big.numpy()
        snap = prof.memory_snapshot()
        blocks = [b for s in snap["segments"] for b in s["blocks"]] + snap["outside"]
        assert blocks
        for b in blocks:
            # One stream on this daemon: every free completes when requested.
            assert b["state"] == "active_allocated"
            assert b["device_owned"] is False  # the CPU backend holds no workspace
            assert isinstance(b["stream"], int)
        del big
    points = prof.memory_timeline(reserved_by_category=True)
    if isinstance(points, tuple):
        points = points[0]
    assert points and all(len(p) == 4 for p in points)
    for _, allocated, reserved, reserved_by in points:
        assert set(reserved_by) | {"held_before_profile"} == set(allocated)
        assert set(reserved_by) >= {"tensor", "staging", "scratch", "workspace", "graph_pool"}
        assert sum(reserved_by.values()) == reserved
    assert max(p[3]["tensor"] for p in points) >= 4 << 20


def test_memory_summary_has_every_category():
    with td.profile(memory=True) as prof:
        big = td.ones((1 << 20,), dtype=td.float32) * 5.0
        big.numpy()
        del big
    rows = {r["category"]: r for r in prof.memory_summary()}
    assert set(rows) == {"tensor", "staging", "scratch", "workspace", "graph_pool"}
    assert rows["tensor"]["peak_allocated"] >= 4 << 20
    assert rows["tensor"]["allocs"] >= 1
    assert rows["tensor"]["pending_frees"] == 0  # one stream: every free completes at once
    for r in rows.values():
        assert 0 <= r["allocated"] <= r["peak_allocated"]
        assert 0 <= r["reserved"] <= r["peak_reserved"]


def test_kernel_scratch_and_fetch_staging_appear_by_category_and_balance():
    rng = np.random.default_rng(0)
    x = rng.random((8, 65536)).astype(np.float32)  # 2 MiB
    a = np.eye(128) * 2.0
    with td.profile(memory=True) as prof:
        s = td.sort(td.asarray(x), axis=1)  # keys and indices per chunk of rows: scratch
        got = s.numpy()  # 2 MiB back inline in the run's reply: fetch staging
        d = float(td.linalg.det(td.asarray(a)))  # a 128 KiB LAPACK work array: scratch
        del s
        # Scratch lives inside its step, staging until the reply goes: between requests the
        # snapshot holds neither (the books balance).
        snap = prof.memory_snapshot()
        blocks = [b for seg in snap["segments"] for b in seg["blocks"]] + snap["outside"]
        assert not [b for b in blocks if b["category"] in ("scratch", "staging")]
    np.testing.assert_array_equal(got, np.sort(x, axis=1))
    assert d == 2.0 ** 128
    rows = {r["category"]: r for r in prof.memory_summary()}
    assert rows["scratch"]["allocs"] >= 2
    assert rows["scratch"]["peak_allocated"] >= 128 * 128 * 8
    assert rows["staging"]["allocs"] >= 1
    assert rows["staging"]["peak_allocated"] >= x.nbytes
    for c in ("scratch", "staging"):
        assert rows[c]["allocated"] == 0  # every scratch and staging block freed
    points = prof.memory_timeline()
    if isinstance(points, tuple):
        points = points[0]
    assert max(p[1]["scratch"] for p in points) >= 128 * 128 * 8
    assert max(p[1]["staging"] for p in points) >= x.nbytes
    assert points[-1][1]["scratch"] == 0 and points[-1][1]["staging"] == 0
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "trace.json")
        prof.export_chrome_trace(path)
        with open(path) as f:
            events = json.load(f)["traceEvents"]
    counters = [e for e in events if e["ph"] == "C"]
    assert max(e["args"].get("scratch", 0) for e in counters) >= 128 * 128 * 8
    assert max(e["args"].get("staging", 0) for e in counters) >= x.nbytes
