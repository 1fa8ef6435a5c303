"""Sessions and threads: each thread has its own current session, and arrays of a thread's
session released on another thread (another thread's `del`, the interpreter's exit) are kept,
never destroyed there, where the C++ client's event loop does not run."""
import os
import subprocess
import sys
import threading

import numpy as np
import pytest

import tensord as td


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
