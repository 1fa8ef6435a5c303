"""Sessions and threads: each thread has its own current session, arrays of a thread's session
released on another thread (another thread's `del`, the interpreter's exit) are kept, never
destroyed there, where the C++ client's event loop does not run, and threads whose daemon dies
each get an error and end."""
import os
import subprocess
import sys
import threading

import numpy as np
import pytest

import tensord as td
from conftest import Daemon


def run_in_thread(f):
    box = {}

    def body():
        try:
            box["value"] = f()
        except BaseException as e:  # noqa: BLE001 (handed to the caller)
            box["error"] = e
    t = threading.Thread(target=body)
    t.start()
    t.join()
    if "error" in box:
        raise box["error"]
    return box["value"]


def test_each_thread_has_its_own_current_session(daemon):
    mine = td.session()

    def fresh_thread():
        with pytest.raises(RuntimeError, match="no session on this thread"):
            td.zeros(3)
        td.connect(daemon.address, name="worker")
        x = td.arange(4, dtype=td.float32) * 2
        return x.numpy().tolist(), td.session() is mine

    values, shared = run_in_thread(fresh_thread)
    assert values == [0.0, 2.0, 4.0, 6.0]
    assert not shared
    assert td.session() is mine  # the worker's connect did not replace this thread's
    assert np.asarray(td.ones(2) + 1).tolist() == [2.0, 2.0]


OTHER_THREADS_ARRAYS = """
import sys, threading, tensord as td
td.connect(sys.argv[1], name="main")
kept = {}
def work():
    td.connect(sys.argv[1], name="worker")
    kept["x"] = td.full((1,), 5.0)
    td.sync(kept["x"])
t = threading.Thread(target=work)
t.start()
t.join()
try:
    kept["x"].item()
except Exception as e:
    print("used elsewhere:", type(e).__name__, e, flush=True)
del kept["x"]  # the last reference, on this thread
print("main still works:", (td.ones(1) * 7).item(), flush=True)
"""


def test_a_threads_arrays_released_on_another_thread_are_kept(daemon):
    run = subprocess.run([sys.executable, "-c", OTHER_THREADS_ARRAYS, daemon.address],
                         capture_output=True, text=True, timeout=120, env=dict(os.environ))
    assert run.returncode == 0, run.stderr  # before: SIGABRT (-6) in KJ
    assert "used elsewhere:" in run.stdout and "thread that opened it" in run.stdout
    assert "main still works: 7.0" in run.stdout
    assert "kept until the process exits" in run.stderr


# Threads each working on their own session of one daemon; the test kills the daemon once every
# thread has run a few ops. Each thread prints how its loop ended.
THREADS_DAEMON_KILLED = r"""
import sys, threading
import numpy as np
import tensord as td
address, n = sys.argv[1], int(sys.argv[2])
ran = threading.Barrier(n + 1)
ended = []
def work(i):
    try:
        td.connect(address)
        x = td.asarray(np.ones((128, 128), np.float32))
        for k in range(10 ** 9):
            y = td.matmul(x, x) if i % 2 else td.exp(x) + i
            if i % 3 == 0:
                y.numpy()  # a download in flight too
            else:
                td.sync(y)
            if k == 3:
                ran.wait()
    except Exception as e:
        ended.append(f"thread {i}: {type(e).__name__}: {e}")  # printed after the joins
threads = [threading.Thread(target=work, args=(i,)) for i in range(n)]
for t in threads:
    t.start()
ran.wait()
print("running", flush=True)
for t in threads:
    t.join()
print("\n".join(ended))
print("all ended", flush=True)
"""


@pytest.mark.parametrize("transport", ["unix", "tcp"])
def test_threads_see_the_daemon_die_and_the_process_exits(transport):
    d = Daemon(tcp=True)
    address = d.address if transport == "unix" else d.tcp_address
    n = 12
    child = subprocess.Popen([sys.executable, "-c", THREADS_DAEMON_KILLED, address, str(n)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env=dict(os.environ))
    try:
        assert child.stdout.readline().strip() == "running"
    finally:
        d.process.kill()  # SIGKILL: no goodbye on any connection
        d.process.wait()
        d.stop()
    out, err = child.communicate(timeout=60)  # a thread left waiting would time out here
    assert child.returncode == 0, err
    lines = [line for line in out.splitlines() if line.startswith("thread ")]
    assert len(lines) == n, out
    assert all("the connection was lost" in line for line in lines), out
    assert out.rstrip().endswith("all ended")
