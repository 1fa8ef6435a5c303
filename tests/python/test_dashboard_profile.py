"""The dashboard's /api/profile against a real daemon: it traces a busy client's session
without the client's help (its ops in a table and on a timeline, and on request its memory, from
the bytes the session held when the profile began, and the Chrome trace), refuses bad queries,
and leaves a session its client profiles alone."""
import json
import subprocess
import sys
import threading

from dashboard_helpers import dashboard, client_env, get, status, wait_for  # noqa: F401


BUSY_CLIENT = """
import sys, numpy as np, tensord as td
td.connect(sys.argv[1], name=sys.argv[2])
x = td.asarray(np.random.default_rng(0).random((128, 128), dtype=np.float32))
print("ready", flush=True)
mode = sys.argv[3]
def work():
    for _ in range(20):
        float(td.softmax(x @ x, axis=-1).sum())
if mode == "profiled":  # its own profile runs until stdin closes
    with td.profile():
        work()
        sys.stdin.read()
elif mode == "late":  # busy until a line comes, then its own profile until stdin closes
    import select
    while not select.select([sys.stdin], [], [], 0)[0]:
        work()
    sys.stdin.readline()
    with td.profile():
        work()
        print("profiling", flush=True)
        sys.stdin.read()
elif mode == "memory":  # holds 4 MiB for a moment, lets it go, again until stdin closes
    import select, time
    while not select.select([sys.stdin], [], [], 0)[0]:
        big = td.ones((1 << 20,), dtype=td.float32) * 2.0
        td.sync(big)
        time.sleep(0.05)
        del big
        float(td.sum(x))  # the release goes out with the next request at the latest
        time.sleep(0.05)
elif mode == "holding":  # holds 16 MiB from before the profile, and runs small requests
    import select
    held = td.ones((4 << 20,), dtype=td.float32) * 2.0  # held before the profile
    td.sync(held)
    print("holding", flush=True)
    while not select.select([sys.stdin], [], [], 0)[0]:
        work()
elif mode == "tracked":  # 16 MiB allocated under its own memory profile, let go on a line
    import select
    with td.profile(memory=True):  # the daemon's ledger tracks what is allocated meanwhile
        held = td.ones((4 << 20,), dtype=td.float32) * 2.0
        td.sync(held)
    print("holding", flush=True)
    sys.stdin.readline()
    del held
    while not select.select([sys.stdin], [], [], 0)[0]:
        work()
else:
    import select
    while not select.select([sys.stdin], [], [], 0)[0]:
        work()
"""


def start_busy_client(d, name, mode="plain"):
    p = subprocess.Popen([sys.executable, "-c", BUSY_CLIENT, d.address, name, mode],
                         env=client_env(), stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert p.stdout.readline().startswith("ready"), f"the client did not start (exit {p.poll()})"
    return p


def session_id(d, name):
    wait_for(lambda: any(s["name"] == name for s in status(d)["sessions"]), f"session {name}")
    return next(s["id"] for s in status(d)["sessions"] if s["name"] == name)


def test_profile_traces_a_session_without_its_client(dashboard):
    url = dashboard.dashboard_url + "api/profile"
    client = start_busy_client(dashboard, "busy")
    try:
        sid = session_id(dashboard, "busy")
        code, _, body = get(f"{url}?seconds=0.5&session={sid}")
        assert code == 200, body
        answer = json.loads(body)
        assert answer["session"] == sid and answer["seconds"] == 0.5 and answer["records"] > 0
        rows = {r["key"]: r for r in answer["key_averages"]}
        assert rows["matmul"]["calls"] > 0 and rows["matmul"]["self_us"] > 0
        assert rows["matmul"]["source"] == "<string>:9", rows["matmul"]  # the client's line
        assert "[request]" in rows and "[execute]" in rows and "chrome_trace" not in answer
        # The timeline: every span of the table, or the longest 2000 and the count of the rest.
        timeline = answer["timeline"]
        assert answer["memory"] is False and "memory" not in timeline
        spans = timeline["spans"]
        assert 0 < len(spans) <= 2000
        assert len(spans) + timeline["spans_left_out"] == sum(r["calls"] for r in rows.values())
        assert any(x["stage"] == "step" and x["name"] == "matmul" and x["source"] == "<string>:9"
                   for x in spans)
        assert [x["start_us"] for x in spans] == sorted(x["start_us"] for x in spans)
        code, _, body = get(f"{url}?session={sid}&seconds=0.3&trace=1")
        assert code == 200, body
        events = json.loads(body)["chrome_trace"]["traceEvents"]
        assert any(e["ph"] == "X" and e["name"] == "matmul" for e in events)
        # done: the session is no longer traced
        assert not next(s for s in status(dashboard)["sessions"] if s["id"] == sid)["profiling"]
        for query, want in (("session=99999", 404), ("", 400), ("session=x", 400),
                            (f"session={sid}&seconds=0", 400), (f"session={sid}&seconds=11", 400),
                            (f"session={sid}&seconds=nan", 400), (f"session={sid}&trace=2", 400),
                            (f"session={sid}&memory=bad", 400), (f"session={sid}&memory=", 400)):
            code, _, body = get(f"{url}?{query}")
            assert code == want, (query, body)
            assert json.loads(body)["error"]
    finally:
        client.stdin.close()
        client.wait(timeout=60)


def test_profile_draws_ops_and_memory_on_one_timeline(dashboard):
    client = start_busy_client(dashboard, "allocating", mode="memory")
    try:
        sid = session_id(dashboard, "allocating")
        code, _, body = get(f"{dashboard.dashboard_url}api/profile?session={sid}&seconds=1&memory=1")
        assert code == 200, body
        answer = json.loads(body)
        assert answer["memory"] is True and answer["dropped"] == 0
        timeline = answer["timeline"]
        end = timeline["duration_us"]
        assert 0.95e6 <= end <= 3e6, end  # the timer's second, late on a loaded machine
        spans = timeline["spans"]
        assert spans and timeline["spans_left_out"] == 0
        for x in spans:  # within the profile's time, the runs in flight at its start left out
            assert 0 <= x["start_us"] and x["duration_us"] >= 0, x
            assert x["start_us"] + x["duration_us"] <= end + 1e-3, (x, end)
        line = next(i for i, text in enumerate(BUSY_CLIENT.split("\n"), 1) if "1 << 20" in text)
        assert any(x["stage"] == "step" and x["source"] == f"<string>:{line}" for x in spans), spans
        assert {"request", "execute", "step"} <= {x["stage"] for x in spans}

        memory = timeline["memory"]
        t, allocated = memory["t_us"], memory["allocated"]
        assert len(t) == len(allocated) > 0 and memory["points_left_out"] == 0
        assert t == sorted(t) and t[0] == 0 and t[-1] <= end + 1e-3
        assert "tensor" in memory["by_category"]
        # The series starts from what the session held then (its 64 KiB x once uploaded, 4 MiB
        # more if the profile began while it held `big`), as one category of its own (flat: no
        # profile recorded memory when they were allocated, so the daemon cannot see them go).
        held = memory["held_before"]
        assert allocated[0] == held, (held, allocated[:3])
        assert memory["by_category"].get("held_before_profile", [0] * len(t)) == [held] * len(t)
        for series in memory["by_category"].values():
            assert len(series) == len(t) and min(series) >= 0
        assert [sum(c) for c in zip(*memory["by_category"].values())] == allocated
        # The client's 4 MiB comes and goes, up to ten times in the second.
        size = 4 << 20
        assert memory["peak_bytes"] == max(allocated) >= size
        assert (memory["peak_us"], memory["peak_bytes"]) in zip(t, allocated)
        rises = sum(1 for a, b in zip(allocated, allocated[1:]) if b - a >= size)
        falls = sum(1 for a, b in zip(allocated, allocated[1:]) if a - b >= size)
        assert rises >= 2 and falls >= 2, (rises, falls)
        assert memory["events"] == len(t) - 1  # and the start

        # Zoom: the daemon keeps the profile; a quarter of it, from the same records.
        lo, hi = end * 0.25, end * 0.5
        zoom = f"{dashboard.dashboard_url}api/profile/timeline?id={answer['id']}"
        code, _, body = get(f"{zoom}&from_us={lo}&to_us={hi}")
        assert code == 200, body
        part = json.loads(body)
        assert part["id"] == answer["id"] and part["session"] == sid
        window = part["timeline"]
        assert abs(window["window"]["from_us"] - lo) < 1e-2, window["window"]
        assert abs(window["window"]["to_us"] - hi) < 1e-2 and window["duration_us"] == end
        for x in window["spans"]:  # each overlaps the window
            assert x["start_us"] <= hi + 1e-2 and x["start_us"] + x["duration_us"] >= lo - 1e-2, x
        inside = [x for x in spans if lo <= x["start_us"] and x["start_us"] + x["duration_us"] <= hi]
        assert len(window["spans"]) >= len(inside) > 0
        part_memory = window["memory"]
        pt = part_memory["t_us"]
        assert abs(pt[0] - lo) < 1e-2 and all(lo - 1e-2 <= x <= hi + 1e-2 for x in pt)
        # It starts from the bytes held then, as the whole series had them, and goes on as it did.
        held_then = allocated[max(i for i, x in enumerate(t) if x < pt[0])]
        assert part_memory["allocated"][0] == held_then, (part_memory["allocated"][:3], held_then)
        assert part_memory["allocated"][1:] == [a for x, a in zip(t, allocated) if pt[0] <= x <= hi]
        assert [sum(c) for c in zip(*part_memory["by_category"].values())] == part_memory["allocated"]
        for query, want in (("id=999999", 404), ("id=x", 400), (f"id={answer['id']}&from_us=abc", 400),
                            (f"id={answer['id']}&from_us={hi}&to_us={lo}", 400)):
            code, _, body = get(f"{dashboard.dashboard_url}api/profile/timeline?{query}")
            assert code == want and json.loads(body)["error"], (query, code, body)
        # done: the session records nothing any more
        assert not next(s for s in status(dashboard)["sessions"] if s["id"] == sid)["profiling"]
    finally:
        client.stdin.close()
        client.wait(timeout=60)
    assert client.returncode == 0


def test_profile_memory_starts_from_what_the_session_held(dashboard):
    # The profile records only what is allocated while it runs: without the bytes held before,
    # a session holding 16 MiB would show a series starting at 0.
    client = start_busy_client(dashboard, "holding", mode="holding")
    try:
        assert client.stdout.readline().startswith("holding")
        sid = session_id(dashboard, "holding")
        live = next(s for s in status(dashboard)["sessions"] if s["id"] == sid)["live_bytes"]
        size = 16 << 20
        assert live >= size, live
        code, _, body = get(f"{dashboard.dashboard_url}api/profile?session={sid}&seconds=0.5&memory=1")
        assert code == 200, body
        memory = json.loads(body)["timeline"]["memory"]
        t, allocated = memory["t_us"], memory["allocated"]
        assert t[0] == 0 and allocated[0] >= size, (t[:3], allocated[:3])
        assert min(allocated) >= size  # held all along
        assert memory["held_before"] == allocated[0] and memory["held_at_end"] >= size, memory
        held = memory["by_category"]["held_before_profile"]
        assert held == [allocated[0]] * len(t)
        line = BUSY_CLIENT.split("\n").index(
            "    held = td.ones((4 << 20,), dtype=td.float32) * 2.0  # held before the profile") + 1
        assert memory["held_before_by"][0] == {"origin": f"<string>:{line} (mul)", "bytes": size,
                                               "tensors": 1}, memory["held_before_by"]
        assert [sum(c) for c in zip(*memory["by_category"].values())] == allocated
        assert memory["peak_bytes"] == max(allocated) >= size
        assert len(t) + memory["points_left_out"] == memory["events"] + 1 > 1  # and the start
    finally:
        client.stdin.close()
        client.wait(timeout=60)
    assert client.returncode == 0


def test_profile_memory_drops_when_a_tensor_held_before_it_goes(dashboard):
    # A block the daemon tracked before the profile (allocated while the client's own profile
    # recorded memory) is adopted by the dashboard's: its free during the profile is recorded,
    # and the held_before_profile band drops then.
    client = start_busy_client(dashboard, "tracked", mode="tracked")
    try:
        assert client.stdout.readline().startswith("holding")
        sid = session_id(dashboard, "tracked")
        wait_for(lambda: not next(s for s in status(dashboard)["sessions"]
                                  if s["id"] == sid)["profiling"], "the client's profile to end")
        size = 16 << 20
        answer = {}

        def profile():
            answer["got"] = get(
                f"{dashboard.dashboard_url}api/profile?session={sid}&seconds=1&memory=1")

        asking = threading.Thread(target=profile)
        asking.start()
        wait_for(lambda: next(s for s in status(dashboard)["sessions"]
                              if s["id"] == sid)["profiling"], "the dashboard's profile")
        client.stdin.write("free it\n")
        client.stdin.flush()
        asking.join(timeout=60)
        code, _, body = answer["got"]
        assert code == 200, body
        memory = json.loads(body)["timeline"]["memory"]
        t, allocated = memory["t_us"], memory["allocated"]
        held = memory["by_category"]["held_before_profile"]
        assert memory["held_before"] == allocated[0] == held[0] >= size, memory
        assert held[-1] <= held[0] - size, held  # freed during the profile: the band drops
        assert held == sorted(held, reverse=True)  # it only ever goes down
        assert allocated[-1] <= allocated[0] - size + (1 << 20), allocated  # its x and a run's
        for series in memory["by_category"].values():
            assert len(series) == len(t) and min(series) >= 0
        assert [sum(c) for c in zip(*memory["by_category"].values())] == allocated
    finally:
        client.stdin.close()
        client.wait(timeout=60)
    assert client.returncode == 0


def test_profile_leaves_a_session_its_client_profiles_alone(dashboard):
    client = start_busy_client(dashboard, "self-profiled", mode="profiled")
    try:
        sid = session_id(dashboard, "self-profiled")
        wait_for(lambda: next(s for s in status(dashboard)["sessions"]
                              if s["id"] == sid)["profiling"], "the client's profile")
        code, _, body = get(f"{dashboard.dashboard_url}api/profile?session={sid}&seconds=0.2")
        assert code == 409 and "profiled by its client" in json.loads(body)["error"], body
    finally:
        client.stdin.close()
        client.wait(timeout=60)
    assert client.returncode == 0
    # A client that starts its own profile while the dashboard traces it gets it; the dashboard's
    # answer says so, and the client's profile goes on.
    client = start_busy_client(dashboard, "late-profiler", mode="late")
    try:
        sid = session_id(dashboard, "late-profiler")
        answers = []
        request = threading.Thread(target=lambda: answers.append(
            get(f"{dashboard.dashboard_url}api/profile?session={sid}&seconds=3")))
        request.start()
        wait_for(lambda: next(s for s in status(dashboard)["sessions"]
                              if s["id"] == sid)["profiling"], "the dashboard's profile")
        client.stdin.write("go\n")
        client.stdin.flush()
        assert client.stdout.readline().startswith("profiling")
        request.join(timeout=30)
        code, _, body = answers[0]
        assert code == 409 and "of its own" in json.loads(body)["error"], body
        assert next(s for s in status(dashboard)["sessions"] if s["id"] == sid)["profiling"]
    finally:
        client.stdin.close()
        client.wait(timeout=60)
    assert client.returncode == 0
