"""scripts/bench fusion-gpu's two halves where there is no GPU (this CI machine) or no
PyTorch: both must say why and exit 77, and bad arguments must be usage errors. A fake `torch`
package on PYTHONPATH stands in for PyTorch without a device, and for PyTorch on one (NumPy,
tiny arrays): the peer script then prints every figure the C++ benchmark looks up."""
import json
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


# A stand-in for PyTorch on a device: NumPy arrays of at most 8 per dimension, whatever the
# shape asked, so that every figure's code path runs here in a moment.
FAKE_TORCH = '''
import types
import numpy as np

__version__ = "fake"
float32 = np.float32
tanh, exp, sqrt, abs, sin, cos = np.tanh, np.exp, np.sqrt, np.abs, np.sin, np.cos


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def relu(x):
    return np.maximum(x, 0)


def softmax(x, dim):
    e = np.exp(x - x.max(axis=dim, keepdims=True))
    return e / e.sum(axis=dim, keepdims=True)


def rand(*shape, device=None, generator=None):
    return generator.rng.random([min(d, 8) for d in shape]).astype(np.float32)


class Generator:
    def __init__(self, device):
        assert device == "cuda"

    def manual_seed(self, seed):
        self.rng = np.random.default_rng(seed)
        return self


def compile(fn):
    return fn


def set_float32_matmul_precision(p):
    assert p == "highest"


def _layer_norm(x, shape, w, b):
    mean = x.mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(x.var(axis=-1, keepdims=True) + 1e-5) * w + b


nn = types.SimpleNamespace(functional=types.SimpleNamespace(
    layer_norm=_layer_norm, linear=lambda x, w, b: x @ w.T + b))


class _Stream:
    def wait_stream(self, other):
        pass


class _Event:
    pass


class _Graph:
    def replay(self):
        pass


class _Context:
    def __init__(self, *args):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


cuda = types.SimpleNamespace(
    is_available=lambda: True, get_device_name=lambda i: "fake GPU", synchronize=lambda: None,
    Stream=_Stream, current_stream=_Stream, stream=_Context, CUDAGraph=_Graph, graph=_Context,
    empty_cache=lambda: None)
'''


def test_peer_prints_every_figure_the_benchmark_reads(tmp_path):
    pytest.importorskip("numpy")
    r = run_peer(tmp_path, FAKE_TORCH, "--repeats", "2", "--warmup", "1")
    assert r.returncode == 0, r.stdout + r.stderr
    lines = [json.loads(line) for line in r.stdout.splitlines()]
    got = {(j["bench"], j["impl"]): j for j in lines}
    want = {("gpu_chain8_256M", "torch_eager"), ("gpu_chain8_vs_compile", "torch_compile"),
            ("graph_replay_200", "torch_eager"), ("graph_replay_200", "torch_cuda_graph"),
            ("mlp_step_small", "torch_eager"),
            ("mlp_step_small_vs_cudagraph", "torch_cuda_graph"),
            ("mlp_chain_small", "torch_eager"),
            ("mlp_chain_small_vs_cudagraph", "torch_cuda_graph")}
    for op in ("softmax", "layernorm"):
        for cols in (4096, 32768, 262144):
            want |= {(f"gpu_{op}_{cols}", "torch_eager"),
                     (f"gpu_{op}_{cols}_vs_compile", "torch_compile")}
    assert set(got) == want
    for j in lines:
        assert j["value"] > 0, j
        assert j["repeats"] == 2
    assert got[("graph_replay_200", "torch_eager")]["unit"] == "us/node"
    assert got[("mlp_step_small", "torch_eager")]["unit"] == "steps/s"
    assert got[("gpu_chain8_256M", "torch_eager")]["unit"] == "GB/s"
    assert got[("graph_replay_200", "torch_eager")]["calls"] == 100


def test_peer_only_runs_the_figures_named(tmp_path):
    pytest.importorskip("numpy")
    r = run_peer(tmp_path, FAKE_TORCH, "--repeats", "1", "--only", "gpu_softmax_4096")
    assert r.returncode == 0, r.stdout + r.stderr
    names = sorted(json.loads(line)["bench"] for line in r.stdout.splitlines())
    assert names == ["gpu_softmax_4096", "gpu_softmax_4096_vs_compile"]


def run_smoke(tmp_path, *args):
    daemon = os.environ.get("TENSORD_BIN", os.path.join(ROOT, "build", "bin", "tensord"))
    if not os.access(daemon, os.X_OK):
        pytest.skip(f"{daemon} is not built")
    env = dict(os.environ, TENSORD_BIN=daemon)
    r = subprocess.run([bench_binary(), "--smoke", "--warmup", "1", "--repeats", "1",
                        "--cache-dir", str(tmp_path / "cache"), *args],
                       capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    return [json.loads(line) for line in r.stdout.splitlines()]


def test_bench_smoke_runs_every_workload_on_the_cpu(tmp_path):
    # --smoke: tiny, on the daemon's own device; exercises the requests each figure sends.
    lines = run_smoke(tmp_path)
    names = {j["bench"] for j in lines}
    want = {"gpu_chain8_256M", "gpu_chain8_vs_compile", "graph_replay_200", "mlp_step_small",
            "mlp_step_small_vs_cudagraph", "graph_replay_200_lazy", "mlp_step_small_lazy",
            "mlp_chain_small", "mlp_chain_small_vs_cudagraph"}
    for op in ("softmax", "layernorm"):
        for cols in (4096, 32768, 262144):
            want |= {f"gpu_{op}_{cols}", f"gpu_{op}_{cols}_vs_compile"}
    assert names == want
    assert all(j["value"] > 0 and "error" not in j for j in lines)


def test_bench_reports_each_figure_against_its_torch_peer(tmp_path):
    peers = tmp_path / "peers.jsonl"
    peers.write_text(
        '{"bench": "gpu_chain8_256M", "impl": "torch_eager", "value": 2.0, "unit": "GB/s"}\n'
        '{"bench": "gpu_chain8_vs_compile", "impl": "torch_compile", "value": 4.0}\n'
        '{"bench": "gpu_chain8_vs_compile", "impl": "torch_compile", "error": "no"}\n')
    lines = run_smoke(tmp_path, "--only", "gpu_chain8", "--torch-peers", str(peers))
    by = {(j["bench"], j["peer"]): j for j in lines}
    assert set(by) == {("gpu_chain8_256M", "torch_eager"),
                       ("gpu_chain8_vs_compile", "torch_compile")}
    j = by[("gpu_chain8_vs_compile", "torch_compile")]
    assert j["peer_value"] == 4.0
    assert j["ratio"] == pytest.approx(j["value"] / 4.0, rel=1e-3)


def test_lazy_lines_compare_with_the_same_torch_peers(tmp_path):
    # The Function figure and the recorded-each-call (_lazy) figure face the same PyTorch runs.
    peers = tmp_path / "peers.jsonl"
    peers.write_text(
        '{"bench": "graph_replay_200", "impl": "torch_eager", "value": 50.0}\n'
        '{"bench": "graph_replay_200", "impl": "torch_cuda_graph", "value": 6.0}\n')
    lines = run_smoke(tmp_path, "--only", "graph_replay_200", "--torch-peers", str(peers))
    by = {(j["bench"], j["peer"]): j for j in lines}
    assert set(by) == {("graph_replay_200", "torch_eager"), ("graph_replay_200", "torch_cuda_graph"),
                       ("graph_replay_200_lazy", "torch_eager"),
                       ("graph_replay_200_lazy", "torch_cuda_graph")}
    assert by[("graph_replay_200_lazy", "torch_cuda_graph")]["peer_value"] == 6.0


def test_bench_passes_daemon_args_to_its_daemon(tmp_path):
    # --daemon-arg reaches the daemon it starts: the flag is accepted (it changes nothing on the
    # CPU), and one the daemon rejects stops the benchmark.
    lines = run_smoke(tmp_path, "--only", "mlp_step_small", "--daemon-arg",
                      "--cuda-programmatic-launch", "--daemon-arg", "off")
    assert {j["bench"] for j in lines} >= {"mlp_step_small"}
    daemon = os.environ.get("TENSORD_BIN", os.path.join(ROOT, "build", "bin", "tensord"))
    r = subprocess.run([bench_binary(), "--smoke", "--only", "mlp_step_small", "--daemon-arg",
                        "--cuda-programmatic-launch", "--daemon-arg", "maybe"],
                       capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, TENSORD_BIN=daemon))
    assert r.returncode != 0 and "cuda-programmatic-launch" in r.stdout + r.stderr, r.stderr
