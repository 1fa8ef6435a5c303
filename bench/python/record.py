"""bench/python: what recording costs from Python. Starts its own daemon (the real binary, from
$TENSORD_BIN) unless --address is given, and prints one JSON line (bench/common/figure.h's
format):
  python_record_per_op   us to record one elementwise op (y = y * b, y = y + b, ...) in a
                         20,000-op chain, nothing sent; vs NumPy running the same op on the
                         same 16-element arrays in this process
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
    finally:
        if process is not None:
            process.terminate()
            process.wait()


if __name__ == "__main__":
    sys.exit(main())
