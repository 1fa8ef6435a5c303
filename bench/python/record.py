"""bench/python: what recording costs from Python. Starts its own daemon (the real binary, from
$TENSORD_BIN) unless --address is given, and prints one JSON line (bench/common/figure.h's
format):
  python_record_per_op   us to record one elementwise op (y = y * b, y = y + b, ...) in a
                         20,000-op chain, nothing sent; vs NumPy running the same op on the
                         same 16-element arrays in this process
  python_sync_1op        us for one recorded op synced and fetched ((a + 1).numpy() on 16
                         floats: record, send, run, reply), median; vs the same session's
                         trivial RPC (memory_stats, answered on the daemon's event loop): the
                         ratio is what a run costs over Cap'n Proto's own round trip
  python_function_chain_1op  us a call of a one-op @td.function, 1000 calls each on the
                         previous call's result and one wait at the end (the daemon queues
                         each behind the one before, without waiting for its reply), median;
                         vs python_sync_1op, a synced round trip
  python_function_mlp_step  steps/s of an 8-layer MLP forward (256 wide, relu between, batch
                         8) kept on the daemon with @td.function, each step on the previous
                         step's result (pipelined, one wait at the end); vs NumPy running the
                         same steps in this process, and (_vs_lazy) vs the same steps recorded
                         and synced each step
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

OPS = 20000
REPEATS = 7


def median(values):
    return sorted(values)[len(values) // 2]


def figure(bench, value, unit, peer, peer_value):
    print(json.dumps({"bench": bench, "value": round(value, 6), "unit": unit, "peer": peer,
                      "peer_value": round(peer_value, 6),
                      "ratio": round(value / peer_value, 4) if peer_value else 0.0},
                     separators=(",", ":")), flush=True)


def chain(a, b, ops):
    y = a
    for i in range(ops // 2):
        y = y * b
        y = y + b
    return y


def per_op_us(a, b, finish=lambda y: None):
    times = []
    for _ in range(REPEATS + 1):
        t0 = time.perf_counter()
        y = chain(a, b, OPS)
        times.append(time.perf_counter() - t0)
        finish(y)
        del y
    return median(times[1:]) * 1e6 / OPS


STEPS = 200
LAYERS, WIDTH, BATCH = 8, 256, 8


def mlp(h, weights, biases, relu, matmul):
    for i, (w, b) in enumerate(zip(weights, biases)):
        h = matmul(h, w) + b
        if i + 1 < len(weights):
            h = relu(h)
    return h


def steps_per_second(step, x, finish, steps=STEPS):
    times = []
    for _ in range(REPEATS + 1):
        t0 = time.perf_counter()
        h = x
        for _ in range(steps):
            h = step(h)
        finish(h)
        times.append(time.perf_counter() - t0)
    return steps / median(times[1:])


def median_us(f, n=2000):
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        f()
        times.append(time.perf_counter() - t0)
    return median(times) * 1e6


def sync_figure(td, a):
    from tensord import _session, _tensord
    session = _session.session()
    ours = median_us(lambda: (a + 1).numpy())
    floor = median_us(lambda: _tensord.memory_stats(session))
    figure("python_sync_1op", ours, "us", "trivial_rpc", floor)
    return ours


def chain_figure(td, a, sync_us, calls=1000):
    step = td.function(lambda x: x * 0.999)
    td.sync(step(a))  # traced and planned before timing
    calls_per_second = steps_per_second(step, a, lambda y: td.sync(y), steps=calls)
    figure("python_function_chain_1op", 1e6 / calls_per_second, "us", "python_sync_1op", sync_us)


def function_figures(td):
    rng = np.random.default_rng(0)
    w_np = [rng.standard_normal((WIDTH, WIDTH), dtype=np.float32) / 16 for _ in range(LAYERS)]
    b_np = [rng.standard_normal(WIDTH, dtype=np.float32) / 16 for _ in range(LAYERS)]
    x_np = rng.standard_normal((BATCH, WIDTH), dtype=np.float32)
    w = [td.asarray(v) for v in w_np]
    b = [td.asarray(v) for v in b_np]
    x = td.asarray(x_np)
    td.sync(x, *w, *b)

    def recorded(h):
        return mlp(h, w, b, lambda v: td.maximum(v, 0), td.matmul)

    kept = td.function(recorded)
    ours = steps_per_second(kept, x, lambda h: td.sync(h))

    def synced(h):
        h = recorded(h)
        td.sync(h)
        return h

    lazy = steps_per_second(synced, x, lambda h: None)
    numpy = steps_per_second(lambda h: mlp(h, w_np, b_np, lambda v: np.maximum(v, 0), np.matmul),
                             x_np, lambda h: None)
    figure("python_function_mlp_step", ours, "steps/s", "numpy_local", numpy)
    figure("python_function_mlp_step_vs_lazy", ours, "steps/s", "lazy_synced_each_step", lazy)


def start_daemon():
    folder = tempfile.mkdtemp(prefix="tensord-bench-")
    address = "unix:" + os.path.join(folder, "tensord.sock")
    binary = os.environ.get("TENSORD_BIN", "build/bin/tensord")
    process = subprocess.Popen([binary, "--listen", address], stdout=subprocess.PIPE, text=True)
    for line in process.stdout:
        if "listening on" in line:
            return process, address
    raise RuntimeError("the daemon did not start")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--address")
    args = parser.parse_args()
    process = None
    address = args.address
    if address is None:
        process, address = start_daemon()
    try:
        import tensord as td
        td.connect(address)
        a_np = np.linspace(0, 1, 16, dtype=np.float32)
        b_np = np.full(16, 0.999, np.float32)
        a, b = td.asarray(a_np), td.asarray(b_np)
        td.sync(a, b)
        ours = per_op_us(a, b, finish=lambda y: td.sync(y))
        numpy = per_op_us(a_np, b_np)
        figure("python_record_per_op", ours, "us", "numpy_op_16", numpy)
        sync_us = sync_figure(td, a)
        chain_figure(td, a, sync_us)
        function_figures(td)
    finally:
        if process is not None:
            process.terminate()
            process.wait()


if __name__ == "__main__":
    sys.exit(main())
