"""--inline-small-runs against the real daemon (server/inline_runs.h): a small run that arrives
while the CPU worker idles runs on the event loop, with the results, errors and source lines a
run on the worker gives; large runs, matmuls and runs of a daemon started with the option off
go to the worker. Calls of a small Function do the same. /metrics counts the runs done on the
event loop."""
import json
import subprocess
import sys
import urllib.request

import numpy as np
import pytest

from conftest import Daemon

SMALL = """
import json, sys, numpy as np, tensord as td
td.connect(sys.argv[1])
x = td.asarray(np.arange(100, dtype=np.float32))
td.sync(x)
sums = [float((x * i + 1).sum().numpy()) for i in range(50)]
try:
    td.take(x, td.asarray(np.array([3, 200], dtype=np.int64))).numpy()
    error = None
except td.TensorError as e:
    error = str(e)
after = (x[:3] * 2).numpy().tolist()
print(json.dumps({"sums": sums, "error": error, "after": after}), flush=True)
"""

LARGE = """
import json, sys, numpy as np, tensord as td
td.connect(sys.argv[1])
big = td.asarray(np.ones(1 << 16, dtype=np.float32))
total = float((big + 1).sum().numpy())
a = td.asarray(np.eye(4, dtype=np.float32))
product = (a @ a).numpy().tolist()
print(json.dumps({"total": total, "product": product}), flush=True)
"""

FUNCTIONS = """
import json, sys, numpy as np, tensord as td
td.connect(sys.argv[1])

@td.function
def step(y):
    return y * 0.5 + 1

@td.function
def pick(x, i):
    return td.take(x, i)

y = td.asarray(np.zeros(100, dtype=np.float32))
synced = []
for _ in range(20):
    y = step(y)
    synced.append(float(y.numpy()[0]))
for _ in range(30):  # pipelined: each call takes the previous one's result before it came back
    y = step(y)
chained = y.numpy().tolist()
x = td.asarray(np.arange(10, dtype=np.float32))
try:
    pick(x, td.asarray(np.array([3, 200], dtype=np.int64))).numpy()
    error = None
except td.TensorError as e:
    error = str(e)
picked = pick(x, td.asarray(np.array([3, 9], dtype=np.int64))).numpy().tolist()
print(json.dumps({"synced": synced, "chained": chained, "error": error, "picked": picked}),
      flush=True)
"""

LARGE_FUNCTIONS = """
import json, sys, numpy as np, tensord as td
td.connect(sys.argv[1])

@td.function
def grow(y):
    return y + 1

@td.function
def square(a):
    return a @ a

big = td.asarray(np.zeros(1 << 16, dtype=np.float32))
for _ in range(3):
    big = grow(big)
    total = float(big.numpy().sum())
a = td.asarray(np.eye(4, dtype=np.float32))
product = square(square(a)).numpy().tolist()
print(json.dumps({"total": total, "product": product}), flush=True)
"""


def client(daemon, program):
    done = subprocess.run([sys.executable, "-c", program, daemon.address],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def inline_runs(daemon):
    with urllib.request.urlopen(daemon.dashboard_url + "metrics", timeout=10) as r:
        for line in r.read().decode().splitlines():
            if line.startswith("tensord_device_inline_runs_total{"):
                return float(line.rsplit(" ", 1)[1])
    raise AssertionError("no tensord_device_inline_runs_total in /metrics")


def small_then_large(flag, small_program, large_program):
    """Runs the two programs against one daemon with --inline-small-runs FLAG: each program's
    result, with the daemon's count of inline runs after it."""
    d = Daemon(args=["--device", "cpu", "--inline-small-runs", flag,
                     "--dashboard", "tcp:127.0.0.1:0"])
    try:
        small = client(d, small_program)
        after_small = inline_runs(d)
        large = client(d, large_program)
        after_large = inline_runs(d)
    finally:
        failure = d.stop()
    assert failure is None, failure
    return small, after_small, large, after_large


@pytest.mark.parametrize("flag", ["on", "off"])
def test_small_runs_on_the_event_loop_give_the_workers_results(flag):
    small, after_small, large, after_large = small_then_large(flag, SMALL, LARGE)
    assert small["sums"] == [float(sum(v * i + 1 for v in range(100))) for i in range(50)]
    # An index out of range fails inside the run (validation cannot see the values), with the
    # op and the client's line, and the session goes on.
    assert small["error"].startswith("shape error in index_select"), small["error"]
    assert "at <string>:8: index 200 is out of bounds" in small["error"], small["error"]
    assert small["after"] == [0.0, 2.0, 4.0]
    assert large["total"] == 2.0 * (1 << 16)
    assert large["product"] == [[1.0 if i == j else 0.0 for j in range(4)] for i in range(4)]
    if flag == "off":
        assert after_small == 0 and after_large == 0
    else:
        assert after_small >= 50  # the client waits for each: the worker idles in between
        assert after_large == after_small  # 64 Ki elements and a matmul went to the worker



@pytest.mark.parametrize("flag", ["on", "off"])
def test_small_function_calls_run_on_the_event_loop_too(flag):
    small, after_small, large, after_large = small_then_large(flag, FUNCTIONS, LARGE_FUNCTIONS)
    expected = [np.float32(0)]
    for _ in range(50):  # float32 as the daemon computes (y * 0.5 is exact: no FMA question)
        expected.append(expected[-1] * np.float32(0.5) + np.float32(1))
    assert small["synced"] == expected[1:21]
    assert small["chained"] == [expected[50]] * 100
    assert small["error"].startswith("shape error in index_select"), small["error"]
    assert "at <string>:11: index 200 is out of bounds" in small["error"], small["error"]
    assert small["picked"] == [3.0, 9.0]
    assert large["total"] == 3.0 * (1 << 16)
    assert large["product"] == [[1.0 if i == j else 0.0 for j in range(4)] for i in range(4)]
    if flag == "off":
        assert after_small == 0 and after_large == 0
    else:
        assert after_small >= 20  # the synced calls: the worker idles between them
        assert after_large == after_small  # 64 Ki elements and matmuls went to the worker
