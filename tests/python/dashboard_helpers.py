"""What the dashboard's API tests (test_dashboard_*.py) share: a real daemon with the dashboard
on (--dashboard) serving a page folder of its own, requests that answer HTTP errors rather than
raise them, and real clients, each in a process of its own, so that the current session of the
other tests stays as it is. The page itself is tested in Chromium (tests/ui/dashboard_test.mjs)."""
import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest

from conftest import Daemon


@pytest.fixture(scope="module")
def dashboard(tmp_path_factory):
    """A daemon per test module, on a unix socket and TCP, its page folder index.html and
    assets/app.js, with a secret.txt beside the folder that must never be served."""
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


def client_env():
    return dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))


def start_client(d, name, address=None):
    """A client that has run once and failed once (inside the daemon), holding its session
    until its stdin closes."""
    p = subprocess.Popen([sys.executable, "-c", CLIENT, address or d.address, name],
                         env=client_env(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         text=True)
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


def wait_closed(d, session_id):
    """/api/status once session `session_id` is no longer open."""
    return wait_for(lambda: (lambda s: s if all(x["id"] != session_id for x in s["sessions"])
                             else None)(status(d)), "the session to close")
