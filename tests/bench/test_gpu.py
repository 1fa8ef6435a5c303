"""scripts/bench gpu's two halves where there is no GPU (this CI machine) or no PyTorch:
bench/gpu/torch_peer.py against a NumPy stand-in for torch on a device prints every figure
tensord-bench-gpu looks up (issue 5's names among them); tensord-bench-gpu says why it skips
(exit 77), rejects bad arguments (exit 2), and with --compile-only measures NVRTC here."""
import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PEER = os.path.join(ROOT, "bench", "gpu", "torch_peer.py")
BENCH = os.environ.get("TENSORD_BENCH_GPU", os.path.join(ROOT, "build", "bin", "tensord-bench-gpu"))

# The figures of issue 5, under its names: tensord-bench-gpu prints them; the ones PyTorch has
# a peer for come from torch_peer.py.
ISSUE_FIGURES = {"copy_bandwidth", "elementwise_bandwidth", "matmul_bf16_8192",
                 "matmul_f32_high_4096", "nvrtc_compile_ms", "kernel_cache_hit_us", "h2d_pinned",
                 "d2h_pinned"}
PEER_FIGURES = {"copy_bandwidth", "elementwise_bandwidth", "matmul_bf16_8192",
                "matmul_f32_highest_4096", "matmul_f32_high_4096", "matmul_f32_medium_4096",
                "h2d_pinned", "d2h_pinned", "d2d_copy_256MiB", "chain_exp_64M",
                "softmax_4096x4096", "layernorm_4096x4096", "matmul_bf16_4096", "sum_64M"}
TRANSFERS = {"h2d_pinned", "d2h_pinned"}  # eager only: nothing to compile or capture

# PyTorch on a device, as far as torch_peer.py uses it: NumPy arrays of at most 8 per dimension,
# whatever the shape asked; CUDA events that report 1 ms.
FAKE_TORCH = '''
import types
import numpy as np

__version__ = "fake"
float32 = np.float32
bfloat16 = np.float16  # NumPy has no bfloat16; a 16-bit stand-in
precisions = []


class Tensor(np.ndarray):
    def to(self, what, non_blocking=False):
        if isinstance(what, str):
            return self.copy()
        return self.astype(what).view(Tensor)

    def copy_(self, other, non_blocking=False):
        self[...] = other
        return self


def _small(shape):
    return [min(d, 8) for d in shape]


def rand(*shape, device=None, generator=None):
    return generator.rng.random(_small(shape)).astype(np.float32).view(Tensor)


def zeros(*shape, dtype=np.float32, pin_memory=False):
    return np.zeros(_small(shape), dtype).view(Tensor)


def empty(*shape, dtype=np.float32, pin_memory=False):
    return np.empty(_small(shape), dtype).view(Tensor)


def empty_like(x):
    return np.empty_like(x).view(Tensor)


neg, exp, matmul = np.negative, np.exp, np.matmul


def softmax(x, dim):
    e = np.exp(x - x.max(axis=dim, keepdims=True))
    return e / e.sum(axis=dim, keepdims=True)


class Generator:
    def __init__(self, device):
        assert device == "cuda"

    def manual_seed(self, seed):
        self.rng = np.random.default_rng(seed)
        return self


def compile(fn):
    return fn


def set_float32_matmul_precision(p):
    assert p in ("highest", "high", "medium")
    precisions.append(p)


def _layer_norm(x, shape, w, b):
    mean = x.mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(x.var(axis=-1, keepdims=True) + 1e-5) * w + b


nn = types.SimpleNamespace(functional=types.SimpleNamespace(layer_norm=_layer_norm))


class _Stream:
    def wait_stream(self, other):
        pass


class _Event:
    def __init__(self, enable_timing=False):
        pass

    def record(self):
        pass

    def synchronize(self):
        pass

    def elapsed_time(self, other):
        return 1.0


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
    Event=_Event, empty_cache=lambda: None)
'''


def run_peer(tmp_path, torch_source, *args):
    (tmp_path / "torch").mkdir()
    (tmp_path / "torch" / "__init__.py").write_text(torch_source)
    env = dict(os.environ, PYTHONPATH=str(tmp_path))
    return subprocess.run([sys.executable, PEER, *args], capture_output=True, text=True,
                          env=env, timeout=120)


def test_peer_without_pytorch_exits_77(tmp_path):
    r = run_peer(tmp_path, "raise ImportError('no torch here')")
    assert r.returncode == 77, r.stderr
    assert "skipped, no PyTorch" in r.stderr
    assert r.stdout == ""


def test_peer_prints_every_figure_the_benchmark_reads(tmp_path):
    pytest.importorskip("numpy")
    r = run_peer(tmp_path, FAKE_TORCH, "--repeats", "2", "--warmup", "1", "--calls", "1")
    assert r.returncode == 0, r.stdout + r.stderr
    lines = [json.loads(line) for line in r.stdout.splitlines()]
    got = {(j["bench"], j["impl"]): j for j in lines}
    want = set()
    for name in PEER_FIGURES:
        impls = ["torch_eager"] if name in TRANSFERS else [
            "torch_eager", "torch_compile", "torch_cuda_graph"]
        want |= {(name, impl) for impl in impls}
    assert set(got) == want
    for j in lines:
        assert j["median_ms"] == 1.0 and j["repeats"] == 2, j
    # 1 ms a call: the value is the amount of one call per millisecond.
    assert got[("matmul_bf16_8192", "torch_eager")]["value"] == pytest.approx(2 * 8192**3 / 1e9)
    assert got[("matmul_f32_high_4096", "torch_eager")]["value"] == pytest.approx(2 * 4096**3 / 1e9)
    assert got[("elementwise_bandwidth", "torch_eager")]["value"] == pytest.approx(
        2 * (256 << 20) * 4 / 1e6)
    assert got[("h2d_pinned", "torch_eager")]["unit"] == "GB/s"
    assert got[("matmul_bf16_8192", "torch_eager")]["unit"] == "TFLOP/s"


def test_peer_times_back_to_back_calls_as_the_benchmark_does(tmp_path):
    # The fake's events are 1 ms apart whatever ran between them: a call is 1/16 ms when 16
    # ran (tensord-bench-gpu's kCallsPerRepeat), 1 ms for the transfers (one a repeat).
    pytest.importorskip("numpy")
    r = run_peer(tmp_path, FAKE_TORCH, "--repeats", "2", "--warmup", "1",
                 "--only", "matmul_bf16_8192,h2d_pinned")
    assert r.returncode == 0, r.stdout + r.stderr
    got = {(j["bench"], j["impl"]): j for j in map(json.loads, r.stdout.splitlines())}
    matmul, upload = got[("matmul_bf16_8192", "torch_eager")], got[("h2d_pinned", "torch_eager")]
    assert matmul["calls"] == 16 and matmul["median_ms"] == pytest.approx(1 / 16)
    assert upload["calls"] == 1 and upload["median_ms"] == 1.0


def test_peer_sets_the_precision_of_each_matmul(tmp_path):
    pytest.importorskip("numpy")
    probe = FAKE_TORCH + '''
import atexit, sys
atexit.register(lambda: print("precisions", ",".join(precisions), file=sys.stderr))
'''
    r = run_peer(tmp_path, probe, "--repeats", "1", "--impls", "torch_eager", "--only",
                 "matmul_f32_high_4096,matmul_bf16_8192")
    assert r.returncode == 0, r.stderr
    assert "precisions highest,high,highest" in r.stderr  # bf16, f32 "high", then reset
    assert {json.loads(x)["bench"] for x in r.stdout.splitlines()} == {
        "matmul_f32_high_4096", "matmul_bf16_8192"}


def test_main_cpp_names_every_issue_figure():
    # The names main.cpp prints (and so looks PyTorch's peers up under).
    text = open(os.path.join(ROOT, "bench", "gpu", "main.cpp")).read()
    for name in ISSUE_FIGURES - {"matmul_f32_high_4096"}:
        assert f'"{name}"' in text, name
    assert '"matmul_f32_"' in text and '"_4096"' in text  # matmul_f32_<precision>_4096


def bench_binary():
    if not os.access(BENCH, os.X_OK):
        pytest.skip(f"{BENCH} is not built")
    return BENCH


def test_bench_usage_errors():
    for args in (["--repeats", "0"], ["--bogus"], ["--kernels", "0"], ["--kernels"],
                 ["--compile-only", "--arch", "7"], ["--compile-only", "--plan-kernels", "0"],
                 ["--compile-only", "--plan-kernels", "49"], ["--compile-only", "--plan-batch", "0"],
                 ["--compile-only", "--plan-threads", "-1"], ["--compile-only", "--dtype", "int8"],
                 ["--compile-only", "--dtype", "float16", "--plan-kernels", "25"],
                 ["--compile-only", "--dtype"]):
        r = subprocess.run([bench_binary(), *args], capture_output=True, text=True, timeout=60)
        assert r.returncode == 2, args
        assert "usage: tensord-bench-gpu" in r.stderr


@pytest.mark.skipif(os.path.exists("/dev/nvidia0"), reason="a GPU is here: it would run")
def test_bench_without_a_device_exits_77():
    r = subprocess.run([bench_binary(), "--repeats", "1"], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 77, r.stderr
    assert "skipped, no usable CUDA device" in r.stderr
    assert r.stdout == ""


COMPILE_ONLY_FIGURES = ["nvrtc_compile_only_ms", "nvrtc_compile_only_cpu_ms",
                        "nvrtc_compile_plan_only_ms", "nvrtc_compile_plan_only_cpu_ms"]


def test_bench_compile_only_measures_nvrtc_without_a_device(tmp_path):
    r = subprocess.run([bench_binary(), "--compile-only", "--kernels", "2", "--plan-kernels", "5",
                        "--plan-threads", "2", "--cache-dir", str(tmp_path)],
                       capture_output=True, text=True, timeout=300)
    if r.returncode == 77:
        assert "no CUDA backend" in r.stderr
        pytest.skip("this build has no CUDA backend")
    assert r.returncode == 0, r.stderr
    lines = [json.loads(line) for line in r.stdout.splitlines()]
    # One kernel alone, then per kernel of a plan's batch; wall then CPU time. The device's
    # figures (nvrtc_compile_ms: the batch and its loads) need a GPU.
    assert [j["bench"] for j in lines] == COMPILE_ONLY_FIGURES
    for j in lines:
        assert j["value"] > 0 and j["unit"] == "ms"
        assert (j["peer"], j["peer_value"]) == ("goal", 50)
    assert "2 units" in r.stderr
    # Five kernels on two threads with at least four a program: one program.
    assert "a plan of 5 kernels in 1 NVRTC programs on up to 2 threads, 3 repeats" in r.stderr
    # The warm-up unit and the two timed ones, compiled into the directory named, none cached.
    cubins = list((tmp_path / "compile-only" / "cuda").glob("*.cubin"))
    assert len(cubins) == 3
    # Each repeat of the plan: a CUBIN name per kernel, all one file (hard links to the program).
    plans = sorted(tmp_path.glob("plan-only-*"))
    assert len(plans) == 3
    for plan in plans:
        names = list((plan / "cuda").glob("*.cubin"))
        assert len(names) == 5
        assert len({os.stat(n).st_ino for n in names}) == 1
        assert not list((plan / "cuda").glob("*.tmp"))


def test_bench_compile_only_plan_as_before_batching(tmp_path):
    # --plan-batch 1 --plan-threads 1: one program a kernel, one at a time (the way before).
    r = subprocess.run([bench_binary(), "--compile-only", "--kernels", "1", "--plan-kernels", "3",
                        "--plan-batch", "1", "--plan-threads", "1", "--cache-dir", str(tmp_path)],
                       capture_output=True, text=True, timeout=300)
    if r.returncode == 77:
        pytest.skip("this build has no CUDA backend")
    assert r.returncode == 0, r.stderr
    assert "a plan of 3 kernels in 3 NVRTC programs on up to 1 threads" in r.stderr
    for plan in tmp_path.glob("plan-only-*"):
        names = list((plan / "cuda").glob("*.cubin"))
        assert len({os.stat(n).st_ino for n in names}) == 3


def test_bench_compile_only_with_other_nvrtc_options():
    r = subprocess.run([bench_binary(), "--compile-only", "--kernels", "1", "--plan-kernels", "1",
                        "--nvrtc-options", " -default-device  -std=c++17 "], capture_output=True,
                       text=True, timeout=300)
    if r.returncode == 77:
        pytest.skip("this build has no CUDA backend")
    assert r.returncode == 0, r.stderr
    assert 'identity "sm_90 nvrtc ' in r.stderr
    assert ' -default-device -std=c++17"' in r.stderr  # split at blanks, the cache's own dropped
    # An option NVRTC refuses: a clear error naming it, exit 1, no figure.
    r = subprocess.run([bench_binary(), "--compile-only", "--kernels", "1", "--plan-kernels", "1",
                        "--nvrtc-options", "--no-such-option"], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 1, r.stderr
    assert "kernel cache figures failed" in r.stderr and "--no-such-option" in r.stderr
    assert '"error"' in r.stdout and '"value"' not in r.stdout


def test_bench_compile_only_one_dtype_and_its_sources(tmp_path):
    # --dtype: the units and the plan all of one dtype, the figures named after it;
    # --dump-sources: each kernel's own unit and the batch's programs, as NVRTC got them.
    dump = tmp_path / "sources"
    r = subprocess.run([bench_binary(), "--compile-only", "--kernels", "1", "--plan-kernels", "16",
                        "--plan-threads", "2", "--dtype", "float16", "--dump-sources", str(dump),
                        "--cache-dir", str(tmp_path / "cache")],
                       capture_output=True, text=True, timeout=300)
    if r.returncode == 77:
        pytest.skip("this build has no CUDA backend")
    assert r.returncode == 0, r.stderr
    lines = [json.loads(line) for line in r.stdout.splitlines()]
    assert [j["bench"] for j in lines] == [f + "_float16" for f in COMPILE_ONLY_FIGURES]
    assert "a plan of 16 kernels in 2 NVRTC programs on up to 2 threads" in r.stderr
    units = sorted(dump.glob("unit-*.cu"))
    programs = sorted(dump.glob("program-*.cu"))
    assert len(units) == 16 and len(programs) == 2
    # Sixteen different ops over float16 (loaded through td_h2f), none over another dtype.
    texts = [u.read_text() for u in units]
    assert len(set(texts)) == 16
    assert all("td_h2f(q0[" in t for t in texts)
    # Each program holds its members' kernels: 8 each, with one prelude.
    for p in programs:
        text = p.read_text()
        assert text.count('extern "C" __global__') == 8
        assert text.count("// 16-bit floats as bits") == 1
