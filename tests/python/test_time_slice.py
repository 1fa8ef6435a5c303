"""Time slicing (docs/scheduling.md) against the real daemon: while one client's long run holds
the device's worker, another client's small request is served in a pause between the long run's
steps, not after it; with --time-slice-ms 0 it waits for the whole run. Each client is a process
of its own. What is checked is the order in which the daemon saw the two runs end (the dashboard
API's recent runs) and the pause counters, never a duration."""
import json
import os
import subprocess
import sys
import time
import urllib.request

import pytest

from conftest import Daemon

# The heavy client: one run of eager steps lasting about SECONDS (its docstring says how).
HEAVY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support", "clients",
                     "long_eager_run.py")

LIGHT = """
import sys, time, numpy as np, tensord as td
td.connect(sys.argv[1], name="light")
x = td.asarray(np.arange(4, dtype=np.float32))
td.sync(x)
print("ready", flush=True)
sys.stdin.readline()
assert float(td.sum(x * 2).numpy()) == 12.0
print("done", time.monotonic(), flush=True)
"""

SECONDS = 2.0


def client(program, *args):
    """`program`: a script's path, or code."""
    command = [program] if os.path.isfile(program) else ["-c", program]
    return subprocess.Popen([sys.executable, *command, *args], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def expect(proc, word):
    line = proc.stdout.readline()
    if not line.startswith(word):
        proc.kill()
        raise AssertionError(f"expected {word!r}, got {line!r}; stderr: {proc.stderr.read()}")
    return line.split()


def finish_times(daemon):
    """(light's finish, heavy's finish) when the light request comes while the heavy run is on
    the device worker (the dashboard API's running_s says when)."""
    light = client(LIGHT, daemon.address)
    heavy = None
    try:
        expect(light, "ready")
        heavy = client(HEAVY, daemon.address, str(SECONDS))
        heavy_steps = expect(heavy, "sending")[1]
        wait_until_running(daemon, "heavy")  # its run is on the worker (for about SECONDS)
        light.stdin.write("go\n")
        light.stdin.flush()
        expect(light, "done")
        expect(heavy, "done")
        assert light.wait(30) == 0, light.stderr.read()
        assert heavy.wait(30) == 0, heavy.stderr.read()
        # When each run ended as the daemon saw it (its results reached the event loop, in the
        # order the worker finished them), not when each client process got to print: on a
        # loaded machine a client wakes up milliseconds late.
        light_done, heavy_done = last_run_end(daemon, "light"), last_run_end(daemon, "heavy")
        print(f"heavy: {heavy_steps} steps; light done {heavy_done - light_done:.3f} s before it")
        return light_done, heavy_done
    finally:
        for p in (light, heavy):
            if p is not None and p.poll() is None:
                p.kill()
                p.wait()


def last_run_end(daemon, name):
    """The end (seconds on the daemon's uptime clock) of session `name`'s last run."""
    with urllib.request.urlopen(daemon.dashboard_url + "api/status", timeout=10) as r:
        runs = [run for run in json.loads(r.read())["recent_runs"] if run["session_name"] == name]
    assert runs and runs[-1]["ok"], runs
    return runs[-1]["start_s"] + runs[-1]["duration_ms"] / 1e3


def wait_until_running(daemon, name):
    """Until the dashboard API says a run of session `name` is on a device worker."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        with urllib.request.urlopen(daemon.dashboard_url + "api/status", timeout=10) as r:
            sessions = json.loads(r.read())["sessions"]
        if any(s["name"] == name and "running_s" in s for s in sessions):
            return
        time.sleep(0.01)
    raise AssertionError(f"no run of session {name!r} reached a device worker in 60 s")


def metric(daemon, name):
    with urllib.request.urlopen(daemon.dashboard_url + "metrics", timeout=10) as r:
        for line in r.read().decode().splitlines():
            if line.startswith(name + "{"):
                return float(line.rsplit(" ", 1)[1])
    raise AssertionError(f"no {name} in /metrics")


@pytest.mark.parametrize("slice_ms", ["5", "0"])
def test_a_light_request_is_served_during_a_long_run(slice_ms):
    # The CPU: its worker runs each step itself. (On a GPU the worker only enqueues kernels, and
    # sessions overlap on their own streams whatever the time slice.)
    d = Daemon(tcp=True, args=["--device", "cpu", "--time-slice-ms", slice_ms,
                               "--dashboard", "tcp:127.0.0.1:0"])
    try:
        light_done, heavy_done = finish_times(d)
        pauses = metric(d, "tensord_device_run_pauses_total")
        served = metric(d, "tensord_device_jobs_in_pauses_total")
    finally:
        failure = d.stop()
    assert failure is None, failure
    if slice_ms == "0":
        assert light_done > heavy_done  # it waited for the whole run
        assert pauses == 0 and served == 0
    else:
        assert light_done < heavy_done  # served in a pause
        assert pauses >= 1 and served >= 1
