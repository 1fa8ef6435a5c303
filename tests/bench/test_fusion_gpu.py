"""scripts/bench fusion-gpu's two halves where there is no GPU (this CI machine) or no
PyTorch: both must say why and exit 77, and bad arguments must be usage errors. A fake `torch`
package on PYTHONPATH stands in for PyTorch without a device."""
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PEER = os.path.join(ROOT, "bench", "fusion", "torch_gpu_peer.py")
BENCH = os.environ.get("TENSORD_BENCH_FUSION_GPU",
                       os.path.join(ROOT, "build", "bin", "tensord-bench-fusion-gpu"))


def run_peer(tmp_path, torch_source, *args):
    if torch_source is not None:
        (tmp_path / "torch").mkdir()
        (tmp_path / "torch" / "__init__.py").write_text(torch_source)
    env = dict(os.environ, PYTHONPATH=str(tmp_path))
    return subprocess.run([sys.executable, PEER, *args], capture_output=True, text=True,
                          env=env, timeout=60)


def test_peer_without_pytorch_exits_77(tmp_path):
    r = run_peer(tmp_path, "raise ImportError('no torch here')")
    assert r.returncode == 77, r.stderr
    assert "skipped, no PyTorch" in r.stderr
    assert r.stdout == ""


def test_peer_without_cuda_exits_77(tmp_path):
    r = run_peer(tmp_path, "class cuda:\n    is_available = staticmethod(lambda: False)\n")
    assert r.returncode == 77, r.stderr
    assert "no usable CUDA device" in r.stderr


def test_peer_rejects_bad_repeats(tmp_path):
    r = run_peer(tmp_path, None, "--repeats", "0")
    assert r.returncode == 2
    assert "--repeats" in r.stderr


def test_peer_ignores_the_benchmarks_own_arguments(tmp_path):
    # scripts/bench gives both halves the same arguments.
    r = run_peer(tmp_path, "raise ImportError('no torch here')", "--address", "unix:/x",
                 "--repeats", "2")
    assert r.returncode == 77, r.stderr


def bench_binary():
    if not os.access(BENCH, os.X_OK):
        pytest.skip(f"{BENCH} is not built")
    return BENCH


def test_bench_usage_errors():
    for args in (["--repeats", "0"], ["--bogus"], ["--only"]):
        r = subprocess.run([bench_binary(), *args], capture_output=True, text=True, timeout=60)
        assert r.returncode == 2, args
        assert "usage: tensord-bench-fusion-gpu" in r.stderr


@pytest.mark.skipif(os.path.exists("/dev/nvidia0"), reason="a GPU is here: it would run")
def test_bench_without_a_device_exits_77():
    r = subprocess.run([bench_binary(), "--repeats", "1"], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 77, r.stderr
    assert "skipped, no usable CUDA device" in r.stderr
    assert r.stdout == ""
