"""Two Python processes share one daemon, each with its own session."""
import os
import subprocess
import sys
import textwrap

import numpy as np

import tensord as td

CHILD = textwrap.dedent("""
    import sys
    import numpy as np, tensord as td
    td.connect(sys.argv[1])
    seed = int(sys.argv[2])
    x = td.random.uniform(size=(64, 64), seed=seed)
    y = td.sum(x @ x.T)
    want = x.numpy().astype(np.float64) @ x.numpy().astype(np.float64).T
    assert abs(float(y) - want.sum()) < 1e-3 * want.sum(), (float(y), want.sum())
    print("ok", seed)
""")


def test_two_processes_share_one_daemon(daemon):
    env = dict(os.environ)
    procs = [subprocess.Popen([sys.executable, "-c", CHILD, daemon.address, str(seed)],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, text=True)
             for seed in (1, 2)]
    # This process keeps using its own session meanwhile.
    x = td.asarray(np.ones(8, np.float32))
    assert float(td.sum(x)) == 8.0
    for seed, p in zip((1, 2), procs):
        out, _ = p.communicate(timeout=120)
        assert p.returncode == 0, out
        assert f"ok {seed}" in out
