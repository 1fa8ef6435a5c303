"""A client that holds the daemon's device worker busy for a while, for the time-slicing tests
(tests/python/test_time_slice.py, tests/ui/dashboard_test.mjs):

    long_eager_run.py ADDRESS SECONDS

connects as "heavy", times an eager chain of 50 sin steps over 4M float32 (the second time, once
planned), then sends one run of as many steps as take about SECONDS here, printing
"sending STEPS" before it and "done T" (time.monotonic(), which the processes share) after."""
import sys
import time

import numpy as np
import tensord as td

td.connect(sys.argv[1], name="heavy")
td.set_compile_mode("eager")
x = td.asarray(np.ones((2048, 2048), np.float32))


def chain(steps):
    y = x
    for _ in range(steps):
        y = td.sin(y)
    return y


td.sync(chain(50))
t0 = time.monotonic()
td.sync(chain(50))
steps = max(200, int(float(sys.argv[2]) * 50 / (time.monotonic() - t0)))
y = chain(steps)
print("sending", steps, flush=True)
td.sync(y)
print("done", time.monotonic(), flush=True)
