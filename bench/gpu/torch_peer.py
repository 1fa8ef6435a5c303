#!/usr/bin/env python3
"""PyTorch peers of tensord-bench-gpu (bench/gpu/main.cpp): the same workloads under the same
names, each in PyTorch eager mode, under torch.compile and replayed as a CUDA graph
(torch.cuda.graphs). Prints one JSON line per (workload, implementation):

    {"bench": "softmax_4096x4096", "impl": "torch_eager", "value": 2510.3, "unit": "GB/s",
     "median_ms": 0.053, "repeats": 20, "calls": 16}

Kernel time only: CUDA events around --calls back-to-back calls on the current stream (16, as
tensord-bench-gpu's kCallsPerRepeat: the device runs both sides' work back to back, warm, with
no idle gap between calls to let its clocks recover; one call for the transfers, which
tensord-bench-gpu times one at a time too), the time divided by the calls, median over
--repeats after --warmup untimed calls (torch.compile compiles during the warm-up). Units as in
tensord-bench-gpu: GB/s counts bytes read + written once, TFLOP/s 2*n^3 per matmul; the
transfers (h2d_pinned, d2h_pinned) copy from and to pinned host memory, eager only. A failing
(workload, implementation) prints {"bench", "impl", "error"} and the others go on.

Exit codes: 0 done; 1 some measurement failed; 77 no PyTorch or no CUDA device.
Usage: python3 bench/gpu/torch_peer.py [--repeats N] [--warmup N] [--calls N] [--only NAME[,NAME]]
       [--impls torch_eager,torch_compile,torch_cuda_graph]
"""
import argparse
import json
import statistics
import sys

ELEMS = 64 << 20  # 64M float32: 256 MiB
BIG = 256 << 20  # 256M float32: 1 GiB (issue 5's bandwidth figures)
ROWS = 4096


def emit(**fields):
    print(json.dumps(fields), flush=True)


def time_ms(torch, fn, warmup, repeats, calls):
    """Median milliseconds a call of fn() on the current stream: CUDA events around `calls`
    calls made back to back, divided by `calls`."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    start = torch.cuda.Event(enable_timing=True)
    stop = torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(repeats):
        start.record()
        for _ in range(calls):
            fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop) / calls)
    return statistics.median(times)


def cuda_torch(program):
    """PyTorch, when it is installed and sees a CUDA device; else None, having said why (the
    caller exits 77: skipped)."""
    try:
        import torch
    except ImportError as e:
        print(f"{program}: skipped, no PyTorch: {e}", file=sys.stderr)
        return None
    if not torch.cuda.is_available():
        print(f"{program}: skipped, no usable CUDA device", file=sys.stderr)
        return None
    print(f"{program}: torch {torch.__version__} on {torch.cuda.get_device_name(0)}",
          file=sys.stderr)
    return torch


def as_graph(torch, fn):
    """fn captured once as a CUDA graph (warmed up on a side stream first, as
    torch.cuda.graphs asks); returns its replay."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        graph.static_output = fn()  # keeps the output alive with the graph
    return graph.replay


class Workload:
    """One figure: `setup()` makes the inputs and returns the call to time; `amount` per call
    over seconds is the figure (bytes/1e9 for GB/s, flops/1e12 for TFLOP/s)."""

    def __init__(self, name, unit, amount, setup, precision=None, eager_only=False):
        self.name, self.unit, self.amount, self.setup = name, unit, amount, setup
        self.precision = precision  # torch.set_float32_matmul_precision for this one
        self.eager_only = eager_only  # transfers: nothing to compile or capture


def workloads(torch):
    F = torch.nn.functional
    dev = "cuda"
    gen = torch.Generator(device=dev).manual_seed(0)

    def rand(*shape, dtype=torch.float32):
        return (torch.rand(*shape, device=dev, generator=gen) * 4 - 2).to(dtype)

    def neg(n):
        def setup():
            x = rand(n)
            return lambda: torch.neg(x)
        return setup

    def copy():
        x = rand(BIG)
        y = torch.empty_like(x)
        return lambda: y.copy_(x)

    def chain():
        x = rand(ELEMS)
        return lambda: torch.exp(x * 2 + 1)

    def softmax():
        m = rand(ROWS, ROWS)
        return lambda: torch.softmax(m, -1)

    def layernorm():
        m, w, b = rand(ROWS, ROWS), rand(ROWS), rand(ROWS)
        return lambda: F.layer_norm(m, (ROWS,), w, b)

    def matmul(dtype, n=ROWS):
        def setup():
            a, c = rand(n, n, dtype=dtype), rand(n, n, dtype=dtype)
            return lambda: torch.matmul(a, c)
        return setup

    def total():
        x = rand(ELEMS)
        return lambda: x.sum()

    def upload():
        host = torch.zeros(ELEMS, dtype=torch.float32, pin_memory=True)
        return lambda: host.to(dev, non_blocking=True)

    def download():
        x = rand(ELEMS)
        host = torch.empty(ELEMS, dtype=torch.float32, pin_memory=True)
        return lambda: host.copy_(x, non_blocking=True)

    nbytes = ELEMS * 4
    big_bytes = BIG * 4
    rows_bytes = 2 * ROWS * ROWS * 4
    tflop = 2 * ROWS ** 3 / 1e12
    return [
        # Issue 5's names (main.cpp reads them): its matmul peers are torch_eager's lines.
        Workload("copy_bandwidth", "GB/s", 2 * big_bytes / 1e9, copy),
        Workload("elementwise_bandwidth", "GB/s", 2 * big_bytes / 1e9, neg(BIG)),
        Workload("matmul_bf16_8192", "TFLOP/s", 2 * 8192 ** 3 / 1e12,
                 matmul(torch.bfloat16, 8192)),
    ] + [
        Workload(f"matmul_f32_{p}_4096", "TFLOP/s", tflop, matmul(torch.float32), precision=p)
        for p in ("highest", "high", "medium")
    ] + [
        Workload("h2d_pinned", "GB/s", nbytes / 1e9, upload, eager_only=True),
        Workload("d2h_pinned", "GB/s", nbytes / 1e9, download, eager_only=True),
        Workload("d2d_copy_256MiB", "GB/s", 2 * nbytes / 1e9, neg(ELEMS)),
        Workload("chain_exp_64M", "GB/s", 2 * nbytes / 1e9, chain),
        Workload("softmax_4096x4096", "GB/s", rows_bytes / 1e9, softmax),
        Workload("layernorm_4096x4096", "GB/s", rows_bytes / 1e9, layernorm),
        Workload("matmul_bf16_4096", "TFLOP/s", tflop, matmul(torch.bfloat16)),
        Workload("sum_64M", "GB/s", nbytes / 1e9, total),
    ]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--calls", type=int, default=16,
                        help="back-to-back calls a timed repeat (transfers: 1)")
    parser.add_argument("--only", default="", help="comma-separated workload names")
    parser.add_argument("--impls", default="torch_eager,torch_compile,torch_cuda_graph")
    args = parser.parse_args()
    torch = cuda_torch("torch_peer.py")
    if torch is None:
        return 77
    only = {n for n in args.only.split(",") if n}
    impls = [i for i in args.impls.split(",") if i]
    failures = 0
    run = None
    for w in workloads(torch):
        name = w.name
        if only and name not in only:
            continue
        torch.set_float32_matmul_precision(w.precision or "highest")
        try:
            fn = w.setup()
        except Exception as e:  # noqa: BLE001 (report and go on)
            emit(bench=name, impl="setup", error=f"{type(e).__name__}: {e}")
            failures += 1
            continue
        for impl in impls:
            if impl != "torch_eager" and w.eager_only:
                continue
            try:
                if impl == "torch_eager":
                    run = fn
                elif impl == "torch_compile":
                    run = torch.compile(fn)
                elif impl == "torch_cuda_graph":
                    run = as_graph(torch, fn)
                else:
                    raise ValueError(f"unknown implementation {impl}")
                calls = 1 if w.eager_only else max(1, args.calls)
                ms = time_ms(torch, run, args.warmup, args.repeats, calls)
                emit(bench=name, impl=impl, value=w.amount / (ms * 1e-3), unit=w.unit,
                     median_ms=ms, repeats=args.repeats, calls=calls)
            except Exception as e:  # noqa: BLE001 (report and go on)
                emit(bench=name, impl=impl, error=f"{type(e).__name__}: {e}")
                failures += 1
        run = fn = None  # the inputs, compiled code and captured graph of this workload go
        torch.cuda.empty_cache()
    torch.set_float32_matmul_precision("highest")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
