"""NumPy's side of bench/ops: times each op of bench/ops/ops_table*.cpp (same names, same
shapes and value ranges) and prints "name median_seconds" lines.

Usage: numpy_peer.py REPEATS [FILTER]. The peers live in peers_*.py, one module per family;
functions NumPy lacks are the NumPy expressions a user would write, or SciPy's where SciPy has
them (those are skipped, with a note on stderr, when SciPy is not installed). An op whose first
run takes over 0.2 s is timed by that run and two more (main.cpp's rule too).
"""
import importlib.util
import os
import sys
import time
from types import SimpleNamespace

import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peers_complex  # noqa: E402
import peers_linalg  # noqa: E402
import peers_math  # noqa: E402
import peers_nn  # noqa: E402
import peers_reduce  # noqa: E402
import peers_shape  # noqa: E402

rng = np.random.default_rng(0)
F = np.float32


def uniform(lo, hi, shape=(1000, 1000)):
    return rng.uniform(lo, hi, shape).astype(F)


def integers(lo, hi, shape, dtype):
    return rng.integers(lo, hi, shape).astype(dtype)


def make_inputs():
    """ops_inputs.cpp's inputs."""
    i = SimpleNamespace()
    i.x, i.y = uniform(-4, 4), uniform(-4, 4)
    i.pos, i.unit, i.prob = uniform(0.5, 4.5), uniform(-0.9, 0.9), uniform(0.01, 0.99)
    i.ints = integers(-1000, 1000, (1000, 1000), np.int32)
    i.shifts = integers(0, 8, (1000, 1000), np.int32)
    i.classes = integers(0, 1000, (1000,), np.int64)
    i.weight = uniform(0, 0.5, (1000,))
    i.mask = i.x > 0
    i.index = integers(0, 1000, (1000, 1000), np.int64)
    i.flat_index = integers(0, 1000000, (1000000,), np.int64)
    i.edges = np.sort(uniform(-4, 4, (1000,)))
    i.counts = integers(0, 3, (1000,), np.int64)
    i.col = uniform(-4, 4, (1000, 1))
    i.a, i.b = uniform(-1, 1, (1024, 1024)), uniform(-1, 1, (1024, 1024))
    i.spd = i.a @ i.a.T / F(1024) + np.eye(1024, dtype=F)
    i.v3a, i.v3b = uniform(-1, 1, (333334, 3)), uniform(-1, 1, (333334, 3))
    i.x100 = uniform(-4, 4, (100, 1000))
    i.signal = uniform(-1, 1, (1 << 20,))
    i.spectrum = np.fft.fft(i.signal).astype(np.complex64)
    i.rspectrum = np.fft.rfft(i.signal).astype(np.complex64)
    i.spectrum2 = np.fft.fft2(i.a).astype(np.complex64)
    i.image = uniform(-1, 1, (16, 16, 64, 64))
    i.kernel2 = uniform(-0.1, 0.1, (16, 16, 3, 3))
    i.seq = uniform(-1, 1, (16, 16, 4096))
    i.kernel1 = uniform(-0.1, 0.1, (16, 16, 3))
    i.volume = uniform(-1, 1, (4, 16, 16, 32, 32))
    i.kernel3 = uniform(-0.1, 0.1, (16, 16, 3, 3, 3))
    i.channel = uniform(0.5, 1.5, (16,))
    i.shuffled = uniform(-1, 1, (16, 64, 32, 32))
    i.q, i.k, i.v = (uniform(-1, 1, (8, 1024, 128)) for _ in range(3))
    i.z = (uniform(-1, 1) + 1j * uniform(-1, 1)).astype(np.complex64)
    i.w = (uniform(-1, 1) + 1j * uniform(-1, 1)).astype(np.complex64)
    i.rng = rng
    return i


def seconds(fn, repeats):
    def once():
        t0 = time.perf_counter()
        fn()
        return time.perf_counter() - t0

    first = once()
    if first > 0.2:
        times = [first, once(), once()]
    else:
        once()
        times = [once() for _ in range(repeats)]
    return sorted(times)[len(times) // 2]


def main():
    warnings.simplefilter("ignore")  # det of a random (1024, 1024) float32 overflows, as ours
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    text = sys.argv[2] if len(sys.argv) > 2 else ""
    sc = None  # scipy's modules, as the peers' lambdas use them
    if importlib.util.find_spec("scipy") is not None:
        import scipy.spatial.distance
        import scipy.special
        import scipy.stats
        sc = SimpleNamespace(special=scipy.special, stats=scipy.stats,
                             distance=scipy.spatial.distance)
    i = make_inputs()
    skipped = []
    for family in (peers_math, peers_reduce, peers_shape, peers_linalg, peers_nn, peers_complex):
        ops = family.numpy_ops(i)
        if sc is not None:
            ops.update(family.scipy_ops(i, sc))
        else:
            skipped += list(family.scipy_ops(i, None))  # names only: nothing is called
        for name, fn in ops.items():
            if text in name:
                print(name, seconds(fn, repeats), flush=True)
    if skipped:
        print("numpy_peer: SciPy is not installed (Debian: python3-scipy); no peer for " +
              ", ".join(skipped), file=sys.stderr)


if __name__ == "__main__":
    main()
