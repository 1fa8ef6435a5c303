"""The dashboard's HTTP side against a real daemon (--dashboard): /api/status follows the
sessions and runs of real clients (each in a process of its own, so the current session of the
other tests stays as it is), /api/profile traces a busy client's session (its ops and, on
request, its memory on one timeline) and leaves one its client profiles alone, the token guards
the API, the page is served from its folder and nothing outside it, and malformed or hostile
HTTP gets an error while the daemon goes on serving. The page itself is tested in Chromium
(tests/ui/dashboard_test.mjs)."""
import http.client
import json
import os
import re
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

import pytest

from conftest import Daemon


@pytest.fixture(scope="module")
def dashboard(tmp_path_factory):
    page = tmp_path_factory.mktemp("page")
    (page / "index.html").write_text("<!doctype html><title>t</title>")
    (page / "assets").mkdir()
    (page / "assets" / "app.js").write_text("console.log(1)")
    (page.parent / "secret.txt").write_text("outside the page folder")
    d = Daemon(tcp=True, args=["--dashboard", "tcp:127.0.0.1:0", "--dashboard-dir", str(page)])
    yield d
    failure = d.stop()
    if failure is not None:
        pytest.fail(f"the dashboard daemon did not exit cleanly, {failure}", pytrace=False)


def get(url, headers=None, method="GET"):
    """(status, headers, body) of one request; HTTP errors are answers, not exceptions."""
    request = urllib.request.Request(url, headers=headers or {}, method=method)
    try:
        with urllib.request.urlopen(request, timeout=10) as r:
            return r.status, r.headers, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read()


def status(d, headers=None):
    code, _, body = get(d.dashboard_url + "api/status", headers)
    assert code == 200, body
    return json.loads(body)


CLIENT = """
import sys, numpy as np, tensord as td
td.connect(sys.argv[1], name=sys.argv[2])
x = td.asarray(np.arange(12, dtype=np.float32).reshape(3, 4))
assert float(td.sum(x * 2 + 1).numpy()) == 144.0
try:  # refused by the daemon, not by the client's shape checks
    td.linalg.svd(td.asarray(np.full((3, 3), np.nan))).U.numpy()
except Exception as e:
    print("failed as expected:", e, flush=True)
print("ready", flush=True)
sys.stdin.read()  # holds the session until the test closes stdin
"""


def start_client(d, name, address=None):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    p = subprocess.Popen([sys.executable, "-c", CLIENT, address or d.address, name], env=env,
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    lines = []
    for line in p.stdout:
        lines.append(line)
        if line.startswith("ready"):
            return p
    raise AssertionError(f"the client did not get ready: {lines} (exit {p.wait()})")


def wait_for(predicate, what, timeout=10):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


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
    after = wait_for(lambda: (lambda s: s if all(x["id"] != session["id"] for x in s["sessions"])
                              else None)(status(dashboard)), "the session to close")
    assert any(r["session"] == session["id"] for r in after["recent_runs"])


def test_the_page_is_served_from_its_folder_and_nothing_else(dashboard):
    code, headers, body = get(dashboard.dashboard_url)
    assert code == 200 and headers["Content-Type"].startswith("text/html") and b"<title>" in body
    code, headers, body = get(dashboard.dashboard_url + "assets/app.js")
    assert code == 200 and headers["Content-Type"].startswith("text/javascript")
    for path in ["../secret.txt", "assets/../../secret.txt", "%2e%2e/secret.txt",
                 "assets//app.js", "./index.html", "nothere.js", "assets"]:
        conn = http.client.HTTPConnection(urllib.parse.urlsplit(dashboard.dashboard_url).netloc,
                                          timeout=10)
        conn.request("GET", "/" + path)  # as written: no client-side normalisation
        r = conn.getresponse()
        assert r.status == 404, path
        assert b"outside the page folder" not in r.read()
        conn.close()


def test_the_api_is_read_only_and_names_what_exists(dashboard):
    code, headers, body = get(dashboard.dashboard_url + "api/status", method="POST")
    assert code == 405 and headers["Allow"] == "GET, HEAD"
    assert "read-only" in json.loads(body)["error"]
    code, _, body = get(dashboard.dashboard_url + "api/sessions")
    assert code == 404 and "/api/status and /api/profile" in json.loads(body)["error"]
    code, headers, body = get(dashboard.dashboard_url + "api/status", method="HEAD")
    assert code == 200 and body == b"" and int(headers["Content-Length"]) > 0


def raw_exchange(url, data, read=True):
    host, port = urllib.parse.urlsplit(url).netloc.split(":")
    chunks = []
    with socket.create_connection((host, int(port)), timeout=10) as s:
        try:
            s.sendall(data)
            if not read:
                return b""
            s.shutdown(socket.SHUT_WR)
            while chunk := s.recv(65536):
                chunks.append(chunk)
        except OSError:  # reset, broken pipe, not connected
            pass  # the daemon hung up on us: what it said before, if anything, is the answer
    return b"".join(chunks)


def test_malformed_http_gets_an_error_and_the_daemon_serves_on(dashboard):
    url = dashboard.dashboard_url
    reply = raw_exchange(url, b"\x00\x01garbage\r\n\r\n")
    assert reply.split(b" ", 2)[1] in (b"400", b"501"), reply[:100]  # kj-http's answers
    huge = b"GET /api/status HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * (1 << 20) + b"\r\n\r\n"
    reply = raw_exchange(url, huge)
    assert reply == b"" or reply.split(b" ", 2)[1] in (b"400", b"431"), reply[:100]
    raw_exchange(url, b"GET /api/sta", read=False)  # a client gone mid-request
    # A body kj-http cannot drain after the answer: answered, and not an error line in the log
    # per request (any client could fill the log).
    for _ in range(3):
        reply = raw_exchange(url, b"GET /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n")
        assert reply.startswith(b"HTTP/1.1 404"), reply[:100]
    assert "threw exception" not in dashboard.log() and " error: " not in dashboard.log()
    # An RPC client and the API both still work.
    client = start_client(dashboard, "after-garbage")
    try:
        assert any(s["name"] == "after-garbage" for s in status(dashboard)["sessions"])
    finally:
        client.stdin.close()
        client.wait(timeout=30)


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
else:
    import select
    while not select.select([sys.stdin], [], [], 0)[0]:
        work()
"""


def start_busy_client(d, name, mode="plain"):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    p = subprocess.Popen([sys.executable, "-c", BUSY_CLIENT, d.address, name, mode],
                         env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
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
        assert t == sorted(t) and 0 <= t[0] and t[-1] <= end + 1e-3
        assert "tensor" in memory["by_category"]
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
        assert memory["events"] == len(t)
        # done: the session records nothing any more
        assert not next(s for s in status(dashboard)["sessions"] if s["id"] == sid)["profiling"]
    finally:
        client.stdin.close()
        client.wait(timeout=60)
    assert client.returncode == 0


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
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    client = subprocess.Popen([sys.executable, "-c", HOLDING_CLIENT, dashboard.address, "holder"],
                              env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
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
    after = wait_for(lambda: (lambda s: s if all(x["id"] != mine["id"] for x in s["sessions"])
                              else None)(status(dashboard)), "the session to close")
    closed_at = after["daemon"]["uptime_s"]
    after = wait_for(lambda: (lambda s: s if s["memory_history"]["t_s"][-1] > closed_at + 1
                              else None)(status(dashboard)), "samples after the close")
    kept = [x for x in after["memory_history"]["sessions"] if x["id"] == mine["id"]]
    assert len(kept) == 1 and kept[0]["name"] == "holder" and max(kept[0]["live_bytes"]) >= size


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


def test_the_token_guards_the_api_not_the_page(tmp_path):
    d = Daemon(args=["--token", "s3cret", "--dashboard", "tcp:127.0.0.1:0",
                     "--dashboard-dir", str(tmp_path / "not-built")])
    try:
        code, _, body = get(d.dashboard_url + "api/status")
        assert code == 401 and "Bearer" in json.loads(body)["error"]
        assert get(d.dashboard_url + "api/status", {"Authorization": "Bearer wrong"})[0] == 401
        assert get(d.dashboard_url + "api/status", {"Authorization": "s3cret"})[0] == 401
        assert status(d, {"Authorization": "Bearer s3cret"})["totals"]["sessions"] == 0
        # No page in that folder: / says so, and where the API is.
        code, _, body = get(d.dashboard_url)
        assert code == 404 and b"not built" in body and b"/api/status" in body
    finally:
        failure = d.stop()
    assert failure is None, failure


def test_a_dashboard_address_in_use_is_reported(dashboard):
    port = urllib.parse.urlsplit(dashboard.dashboard_url).port
    with pytest.raises(RuntimeError, match="cannot listen on tcp:127.0.0.1:%d" % port):
        Daemon(args=["--dashboard", "tcp:127.0.0.1:%d" % port])


SAMPLE = re.compile(r'^(tensord_[a-z_]+)(?:\{((?:[a-z_]+="(?:[^"\\\n]|\\.)*",?)*)\})? (\S+)$')
LABEL = re.compile(r'([a-z_]+)="((?:[^"\\]|\\.)*)"')


def parse_metrics(text):
    """{(name, ((label, value), ...)): float}, checking the text exposition format on the way:
    every sample after its family's HELP and TYPE, names and labels well formed."""
    typed, samples = set(), {}
    for line in text.splitlines():
        if line.startswith("# HELP ") or line.startswith("# TYPE "):
            name = line.split(" ")[2]
            assert re.fullmatch(r"tensord_[a-z_]+", name), line
            if line.startswith("# TYPE "):
                assert line.split(" ")[3] in ("counter", "gauge"), line
                typed.add(name)
            continue
        m = SAMPLE.match(line)
        assert m, f"not a sample line: {line!r}"
        assert m.group(1) in typed, f"{m.group(1)} has no TYPE before it"
        labels = tuple((k, v.replace('\\"', '"').replace("\\\\", "\\"))
                       for k, v in LABEL.findall(m.group(2) or ""))
        samples[(m.group(1), labels)] = float(m.group(3))
    return samples


def test_metrics_agree_with_the_status(dashboard):
    name = 'q"uote\\back'
    client = start_client(dashboard, name)
    try:
        code, headers, body = get(dashboard.dashboard_url + "metrics")
        assert code == 200 and headers["Content-Type"].startswith("text/plain; version=0.0.4")
        metrics = parse_metrics(body.decode())
        now = status(dashboard)
    finally:
        client.stdin.close()
        client.wait(timeout=30)
    totals = now["totals"]
    assert metrics[("tensord_runs_total", ())] == totals["runs"]
    assert metrics[("tensord_failed_runs_total", ())] == totals["failed_runs"]
    assert metrics[("tensord_sessions", ())] == totals["sessions"] >= 1
    assert metrics[("tensord_run_seconds_total", ())] >= metrics[("tensord_run_wait_seconds_total", ())] > 0
    session = next(s for s in now["sessions"] if s["name"] == name)
    labels = (("session", str(session["id"])), ("name", name))
    assert metrics[("tensord_session_runs_total", labels)] == 1
    assert metrics[("tensord_session_failed_runs_total", labels)] == 1
    device = now["devices"][0]
    where = (("device", f'{device["kind"]}:{device["index"]}'),)
    assert metrics[("tensord_device_memory_total_bytes", where)] == device["total_memory"]
    host = now["kernels"][0]
    assert metrics[("tensord_kernel_cache_misses_total", (("target", host["target"]),))] == host["misses"]


def test_the_token_guards_the_metrics(tmp_path):
    d = Daemon(args=["--token", "s3cret", "--dashboard", "tcp:127.0.0.1:0"])
    try:
        assert get(d.dashboard_url + "metrics")[0] == 401
        code, _, body = get(d.dashboard_url + "metrics", {"Authorization": "Bearer s3cret"})
        assert code == 200 and parse_metrics(body.decode())[("tensord_sessions", ())] == 0
    finally:
        failure = d.stop()
    assert failure is None, failure


def test_a_tcp_session_shows_the_address_it_connects_from(dashboard):
    client = start_client(dashboard, "over-tcp", dashboard.tcp_address)
    try:
        session = next(s for s in status(dashboard)["sessions"] if s["name"] == "over-tcp")
        host, port = session["peer"].rsplit(":", 1)
        assert host == "127.0.0.1" and 0 < int(port) < 65536, session
    finally:
        client.stdin.close()
        client.wait(timeout=30)
