"""The dashboard's /metrics against a real daemon: Prometheus' text format, checked line by line,
agreeing with /api/status (a session name with a quote and a backslash), and under the token."""
import re

from conftest import Daemon
from dashboard_helpers import dashboard, get, start_client, status  # noqa: F401


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
