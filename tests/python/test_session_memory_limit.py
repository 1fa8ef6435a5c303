"""--session-memory-limit against the real daemon: a session's uploads and run results past its
limit fail with a quota error that says what it holds and where it was made, the session goes on
working and gets its room back when it frees tensors, and another session is not limited by the
first one's tensors.
Each session is a client process of its own (a session belongs to its process's thread)."""
import json
import subprocess
import sys
import urllib.request

import pytest

from conftest import Daemon

LIMIT = 16 << 20  # 16 MiB; arrays above 4 MiB are uploaded, not sent inside the graph

CLIENT = """
import gc, json, sys, time, numpy as np, tensord as td
td.connect(sys.argv[1], name=sys.argv[2])
def floats(n):  # n float32: 4n bytes
    return np.ones(n, np.float32)
def attempt(f):
    try:
        f()
        return "ok"
    except td.TensorError as e:
        return str(e)
def live_bytes():
    return td.info()["session"]["live_bytes"]
out = {}
if sys.argv[2] == "first":
    a = td.asarray(floats(2 << 20))  # 8 MiB
    td.sync(a)
    out["held"] = live_bytes()
    out["upload_past"] = attempt(lambda: td.sync(td.asarray(floats(10 << 18))))  # 10 MiB
    out["run_past"] = attempt(lambda: td.sync(td.concat([a, a])))  # a 16 MiB result
    out["small_run"] = attempt(lambda: float(td.sum(a[:4]).numpy()))
    b = td.zeros(1 << 20) + 1  # 4 MiB made by a run at this line
    td.sync(b)
    out["named_past"] = attempt(lambda: td.sync(td.asarray(floats(2 << 20))))  # 8 + 4 + 8 MiB
    del b
    print(json.dumps(out), flush=True)
    sys.stdin.readline()  # the other session runs now, while this one holds its 512 KiB
    del a
    gc.collect()
    deadline = time.monotonic() + 10
    while live_bytes() > 0 and time.monotonic() < deadline:  # releases travel asynchronously
        time.sleep(0.02)
    out = {"after_free": attempt(lambda: td.sync(td.asarray(floats(10 << 18))))}
else:
    out["other_session"] = attempt(lambda: td.sync(td.asarray(floats(3 << 20))))  # 12 MiB
print(json.dumps(out), flush=True)
"""


def client(address, name):
    return subprocess.Popen([sys.executable, "-c", CLIENT, address, name],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def result(proc):
    line = proc.stdout.readline()
    assert line, proc.stderr.read()
    return json.loads(line)


@pytest.fixture
def limited():
    d = Daemon(tcp=True, args=["--session-memory-limit", str(LIMIT),
                               "--dashboard", "tcp:127.0.0.1:0"])
    yield d
    failure = d.stop()
    assert failure is None, failure


# Over the unix socket large arrays travel as a shared memfd, over TCP in chunked uploads.
@pytest.mark.parametrize("transport", ["unix", "tcp"])
def test_a_session_past_its_limit_fails_alone_and_recovers(limited, transport):
    address = limited.address if transport == "unix" else limited.tcp_address
    first = client(address, "first")
    try:
        r = result(first)
        assert r["held"] == 8 << 20
        for key in ("upload_past", "run_past"):
            message = r[key]
            assert "quota" in message and "--session-memory-limit" in message, (key, message)
            assert "1 live tensors hold 8.00 MiB (8388608 bytes) of its 16.00 MiB" in message, message
        assert "this upload needs 10.00 MiB" in r["upload_past"]
        assert "the run's 1 output needs 16.00 MiB" in r["run_past"]
        assert r["small_run"] == "ok"
        # The error names what holds the session's bytes, largest first, at the user's line.
        assert "the largest holders: upload 8.00 MiB (8388608 bytes) in 1 tensor" in r["upload_past"]
        line = CLIENT.split("\n").index("    b = td.zeros(1 << 20) + 1  # 4 MiB made by a run at this line") + 1
        assert ("the largest holders: upload 8.00 MiB (8388608 bytes) in 1 tensor, "
                f"<string>:{line} (add) 4.00 MiB (4194304 bytes) in 1 tensor") in r["named_past"], r

        other = client(address, "second")
        assert result(other) == {"other_session": "ok"}
        assert other.wait(30) == 0, other.stderr.read()

        first.stdin.write("go\n")
        first.stdin.flush()
        assert result(first) == {"after_free": "ok"}
        assert first.wait(30) == 0, first.stderr.read()
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()
    with urllib.request.urlopen(limited.dashboard_url + "api/status", timeout=10) as r:
        assert json.loads(r.read())["daemon"]["session_memory_limit"] == LIMIT
