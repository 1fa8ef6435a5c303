import time, numpy as np, tensord as td
td.connect()
rng = np.random.default_rng(0)
def bench(f, reps=7):
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter(); f(); ts.append(time.perf_counter() - t0)
    return sorted(ts)[len(ts)//2] * 1e3
for dt in (np.complex64, np.complex128):
    a = (rng.standard_normal((512, 512)) + 1j * rng.standard_normal((512, 512))).astype(dt)
    b = (rng.standard_normal((512, 512)) + 1j * rng.standard_normal((512, 512))).astype(dt)
    x, y = td.asarray(a), td.asarray(b)
    f = lambda: td.sync(x @ y); g = lambda: a @ b
    h = lambda: td.sync(td.conj(x) @ y)
    f(); g(); h()
    print(np.dtype(dt).name, "td %.2f ms  numpy %.2f ms  td conj(a)@b %.2f ms" % (bench(f), bench(g), bench(h)))
