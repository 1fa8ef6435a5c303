"""tensord-bench-profiler's GPU figure (profile_overhead_replay, `--device cuda`) where there is
no GPU, as on this CI machine: it must say why and exit 77 (scripts/gpu-session counts that as
skipped), and bad arguments must be usage errors."""
import os
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BENCH = os.environ.get("TENSORD_BENCH_PROFILER",
                       os.path.join(ROOT, "build", "bin", "tensord-bench-profiler"))


def run_bench(*args):
    if not os.access(BENCH, os.X_OK):
        pytest.skip(f"{BENCH} is not built")
    return subprocess.run([BENCH, *args], capture_output=True, text=True, timeout=120)


def test_usage_errors():
    for args in (["--device"], ["--device", "tpu"], ["--bogus"]):
        r = run_bench(*args)
        assert r.returncode == 2, (args, r.stderr)
        assert "usage: tensord-bench-profiler" in r.stderr


def test_gpu_figure_without_a_device_exits_77():
    r = run_bench("--device", "cuda")
    if r.returncode == 0:
        pytest.skip("this machine has a usable CUDA device")
    assert r.returncode == 77, r.stderr
    assert "skipped" in r.stderr
    assert r.stdout == ""
