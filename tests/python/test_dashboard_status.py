"""The dashboard's /api/status against a real daemon: it follows the sessions and runs of real
clients (one run failing inside the daemon), names where each session connects from, and its
memory_history shows a client's memory rise and fall, the session kept after it closed, and
sums the sessions past the 16 with the highest peaks as one."""
import os
import subprocess
import sys

from conftest import Daemon
from dashboard_helpers import (dashboard, client_env, start_client, status,  # noqa: F401
                               wait_closed, wait_for)


def test_status_follows_sessions_and_runs(dashboard):
    before = status(dashboard)
    assert before["daemon"]["version"]
    assert before["daemon"]["listen"] == [dashboard.address, dashboard.tcp_address]
    assert before["devices"] and before["devices"][0]["kind"] in ("cpu", "cuda")
    memory = before["devices"][0]["memory"]  # what Session.memoryStats says of the device
    assert ("host_cached" in memory) if before["devices"][0]["kind"] == "cpu" else ("reserved" in memory)
    client = start_client(dashboard, 'dash "client" 1')
    try:
        now = status(dashboard)
        mine = [s for s in now["sessions"] if s["name"] == 'dash "client" 1']
        assert len(mine) == 1, now["sessions"]
        session = mine[0]
        assert session["runs"] == 1 and session["failed_runs"] == 1
        assert session["live_tensors"] >= 1 and session["compile_mode"]
        assert session["client"].endswith(f" pid {client.pid}") and "@" in session["client"]
        # The connection as the system says: the unix socket's peer credentials.
        assert session["peer"].startswith(f"uid {os.getuid()} ")
        assert session["peer"].endswith(f" pid {client.pid}")
        assert now["totals"]["runs"] == before["totals"]["runs"] + 1
        assert now["totals"]["failed_runs"] == before["totals"]["failed_runs"] + 1
        runs = [r for r in now["recent_runs"] if r["session"] == session["id"]]
        assert [r["ok"] for r in runs] == [True, False]
        assert runs[0]["nodes"] >= 3 and runs[0]["duration_ms"] > 0 and runs[0]["error"] == ""
        for r in runs:  # both reached a worker (the svd failed there)
            assert 0 < r["wait_ms"] < r["duration_ms"], r
        assert "gesdd cannot factor" in runs[1]["error"] and "svd" in runs[1]["error"]
        assert 0 <= runs[0]["start_s"] <= runs[1]["start_s"] <= now["daemon"]["uptime_s"]
    finally:
        client.stdin.close()
        client.wait(timeout=30)
    # The session closes with its client; its runs stay in the recent list.
    after = wait_closed(dashboard, session["id"])
    assert any(r["session"] == session["id"] for r in after["recent_runs"])


def test_a_tcp_session_shows_the_address_it_connects_from(dashboard):
    client = start_client(dashboard, "over-tcp", dashboard.tcp_address)
    try:
        session = next(s for s in status(dashboard)["sessions"] if s["name"] == "over-tcp")
        host, port = session["peer"].rsplit(":", 1)
        assert host == "127.0.0.1" and 0 < int(port) < 65536, session
    finally:
        client.stdin.close()
        client.wait(timeout=30)


HOLDING_CLIENT = """
import sys, time, tensord as td
td.connect(sys.argv[1], name=sys.argv[2])
big = td.ones((2 << 20,), dtype=td.float32) * 2.0  # 8 MiB
td.sync(big)
print("holding", flush=True)
time.sleep(2.5)
del big
td.sync(td.ones((1,)))  # the release goes out with the next request at the latest
print("dropped", flush=True)
sys.stdin.read()
"""


def test_memory_history_shows_a_session_hold_and_drop_8_mib(dashboard):
    client = subprocess.Popen([sys.executable, "-c", HOLDING_CLIENT, dashboard.address, "holder"],
                              env=client_env(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              text=True)
    size = 8 << 20

    def held_and_dropped():
        history = status(dashboard)["memory_history"]
        mine = [x for x in history["sessions"] if x["name"] == "holder"]
        if not mine:
            return None
        series = mine[0]["live_bytes"]
        top = max(range(len(series)), key=series.__getitem__)
        return (history, mine[0]) if series[top] >= size and min(series[top:]) < size else None

    try:
        # While it holds them, its row says where the 8 MiB were made (the client's line).
        assert client.stdout.readline().startswith("holding")
        row = next(s for s in status(dashboard)["sessions"] if s["name"] == "holder")
        line = HOLDING_CLIENT.split("\n").index(
            "big = td.ones((2 << 20,), dtype=td.float32) * 2.0  # 8 MiB") + 1
        assert row["holdings"][0] == {"origin": f"<string>:{line} (mul)", "bytes": size,
                                      "tensors": 1}, row
        history, mine = wait_for(held_and_dropped, "the 8 MiB to show and go", timeout=30)
        t = history["t_s"]
        assert history["interval_s"] == 1 and 2 <= len(t) <= 60 and t == sorted(t)
        assert all(0.5 < b - a < 3 for a, b in zip(t, t[1:])), t  # once a second, give or take
        assert t[-1] <= status(dashboard)["daemon"]["uptime_s"]
        for series in history["sessions"]:
            assert len(series["live_bytes"]) == len(t), series
        device = history["devices"][0]
        assert device["kind"] in ("cpu", "cuda") and device["index"] == 0
        figures = ["host_cached"] if device["kind"] == "cpu" else ["allocated", "reserved"]
        assert all(len(device[f]) == len(t) for f in figures), device
    finally:
        client.stdin.close()
        client.wait(timeout=30)
    assert client.returncode == 0
    # Closed, the session stays in the history under its id and name.
    after = wait_closed(dashboard, mine["id"])
    closed_at = after["daemon"]["uptime_s"]
    after = wait_for(lambda: (lambda s: s if s["memory_history"]["t_s"][-1] > closed_at + 1
                              else None)(status(dashboard)), "samples after the close")
    kept = [x for x in after["memory_history"]["sessions"] if x["id"] == mine["id"]]
    assert len(kept) == 1 and kept[0]["name"] == "holder" and max(kept[0]["live_bytes"]) >= size


MANY_SESSIONS_CLIENT = """
import sys, threading, tensord as td
opened, done = threading.Semaphore(0), threading.Event()
def hold(i):  # one session per thread: session i holds (i + 1) * 4 KiB
    td.connect(sys.argv[1], name=f"many-{i}")  # this thread's current session
    held = td.ones(((i + 1) << 10,), dtype=td.float32)
    td.sync(held)
    opened.release()
    done.wait()
    del held
threads = [threading.Thread(target=hold, args=(i,)) for i in range(20)]
for t in threads:  # one after the other
    t.start()
    opened.acquire()
print("ready", flush=True)
sys.stdin.read()
done.set()
for t in threads:
    t.join()
"""


def test_memory_history_sums_the_sessions_past_16_as_one():
    d = Daemon(args=["--dashboard", "tcp:127.0.0.1:0"])
    client = subprocess.Popen([sys.executable, "-c", MANY_SESSIONS_CLIENT, d.address],
                              env=client_env(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              text=True)
    try:
        assert client.stdout.readline().startswith("ready"), f"exit {client.poll()}"
        ready_at = status(d)["daemon"]["uptime_s"]
        now = wait_for(lambda: (lambda s: s if s["memory_history"]["t_s"][-1] > ready_at
                                else None)(status(d)), "a sample with every session open")
        history = now["memory_history"]
        held = {s["name"]: s["live_bytes"] for s in now["sessions"]}
        assert len(held) == 20 and all(held[f"many-{i}"] >= (i + 1) << 12 for i in range(20))
        # The 16 highest peaks have series of their own, the 4 smallest are summed.
        assert sorted(x["name"] for x in history["sessions"]) == sorted(
            f"many-{i}" for i in range(4, 20))
        other = history["other_sessions"]
        assert other["count"] == 4 and len(other["live_bytes"]) == len(history["t_s"])
        for x in history["sessions"]:
            assert len(x["live_bytes"]) == len(history["t_s"]) and x["live_bytes"][-1] == held[x["name"]]
        assert other["live_bytes"][-1] == sum(held[f"many-{i}"] for i in range(4))
        # Stacked, every session's bytes.
        assert sum(x["live_bytes"][-1] for x in history["sessions"]) + other["live_bytes"][-1] == \
            now["totals"]["live_bytes"]
    finally:
        client.stdin.close()
        client.wait(timeout=30)
        failure = d.stop()
    assert client.returncode == 0
    assert failure is None, failure
