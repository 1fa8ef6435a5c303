# NumPy peers of bench/fusion, run by /usr/bin/python3 in the same run. Prints
# "name GB/s" lines (effective bandwidth: bytes read + written once, median of repeats).
import sys
import time

import numpy as np


def median_seconds(fn, repeats=7):
    fn()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    times.sort()
    return times[len(times) // 2]


def main():
    rng = np.random.default_rng(0)
    x = rng.uniform(-2, 2, 16 * 1024 * 1024).astype(np.float32)
    t = median_seconds(lambda: np.tanh(np.exp(-x * x) * 2 + 1) * 0.5 - np.sqrt(np.abs(x)))
    print("chain8", 2 * x.nbytes / t / 1e9)

    for shape, suffix in (((4096, 4096), ""), ((262144, 64), "64")):
        m = rng.uniform(-2, 2, shape).astype(np.float32)

        def softmax():
            e = np.exp(m - m.max(axis=-1, keepdims=True))
            return e / e.sum(axis=-1, keepdims=True)

        print("softmax" + suffix, 2 * m.nbytes / median_seconds(softmax) / 1e9)
        w = rng.uniform(-1, 1, shape[1]).astype(np.float32)
        b = rng.uniform(-1, 1, shape[1]).astype(np.float32)

        def layernorm():
            mean = m.mean(axis=-1, keepdims=True)
            d = m - mean
            var = (d * d).mean(axis=-1, keepdims=True)
            return d / np.sqrt(var + 1e-5) * w + b

        print("layernorm" + suffix, 2 * m.nbytes / median_seconds(layernorm) / 1e9)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
