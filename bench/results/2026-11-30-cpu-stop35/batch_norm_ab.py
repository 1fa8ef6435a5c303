import time, sys, json, os
import numpy as np
sys.path.insert(0, "/work/main/bench/python")
from record import start_daemon
p, addr = start_daemon()
out = {}
try:
    import tensord as td
    td.connect(addr)
    rng = np.random.default_rng(0)
    for shape in [(32, 64, 56, 56), (1024, 64, 4, 4), (4096, 64, 2, 2)]:
        xn = rng.random(shape, dtype=np.float32)
        x = td.asarray(xn)
        C = shape[1]
        w = td.asarray(np.ones(C, np.float32)); b = td.asarray(np.zeros(C, np.float32))
        td.sync(x, w, b)
        rm = td.asarray(np.zeros(C, np.float32)); rv = td.asarray(np.ones(C, np.float32))
        variants = {"bn_train": lambda: (td.batch_norm(x, rm, rv, w, b, training=True, momentum=None),),
                    "bn_train_momentum": lambda: (td.batch_norm(x, rm, rv, w, b, training=True, momentum=0.1), rm, rv),
                    "var_0_2_3": lambda: (td.var(x, axis=(0, 2, 3)),)}
        for name, f in variants.items():
            ts = []
            for i in range(16):
                t0 = time.perf_counter()
                td.sync(*f())
                ts.append(time.perf_counter() - t0)
            out[f"{name}{shape}"] = round(sorted(ts[6:])[5] * 1e3, 2)
finally:
    p.terminate(); p.wait()
print(json.dumps(out))
