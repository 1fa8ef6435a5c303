#!/usr/bin/env python3
"""PyTorch peers of tensord-bench-fusion-gpu (bench/fusion/gpu_main.cpp): the same workloads
on the same GPU, one JSON line per (figure, implementation), named as the figure they are the
peer of:

    {"bench": "gpu_chain8_vs_compile", "impl": "torch_compile", "value": 2901.4,
     "unit": "GB/s", "median_ms": 0.74, "calls": 16, "repeats": 10}

Timing as tensord-bench-fusion-gpu's (its header comment): inputs made before timing and
resident on the device; a sample is the wall-clock time of N back-to-back calls and one
torch.cuda.synchronize() at the end, divided by N (N = 16 for the 256 MiB-and-larger workloads,
100 for graph_replay_200 and the mlp figures); the figure is the median over --repeats samples
after --warmup untimed calls (torch.compile compiles during the warm-up). A failing
(figure, implementation) prints {"bench", "impl", "error"} and the others go on.

Exit codes: 0 done; 1 some measurement failed; 77 no PyTorch or no CUDA device.
Usage: python3 bench/fusion/torch_gpu_peer.py [--repeats N] [--warmup N] [--only PREFIX]
"""
import argparse
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "gpu"))
from torch_peer import as_graph, cuda_torch  # noqa: E402  (shared by both GPU benches)

CHAIN_ELEMS = 256 << 20  # 1 GiB of float32
ROWS_ELEMS = 64 << 20  # 256 MiB of float32
BIG_CALLS, SMALL_CALLS = 16, 100  # gpu_main.cpp's Sizes
REPLAY_NODES = 200
MLP_LAYERS, MLP_BATCH, MLP_WIDTH = 8, 8, 256


def emit(**fields):
    print(json.dumps(fields), flush=True)


def seconds_per_call(torch, fn, calls, warmup, repeats):
    """Median over repeats of (wall clock of `calls` calls + one synchronize) / calls."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    samples = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        torch.cuda.synchronize()
        samples.append((time.perf_counter() - t0) / calls)
    return statistics.median(samples)


def chain8(torch, x):
    return torch.tanh(torch.exp(-(x * x)) * 2 + 1) * 0.5 - torch.sqrt(torch.abs(x))


def replay_ops(torch, y):
    """bench/common/launch_bound.h's replay_ops: 200 segments of five elementwise ops, each
    after the first starting from (y.T + y) / 2."""
    for i in range(1, REPLAY_NODES + 1):
        if i > 1:
            y = (y.transpose(0, 1) + y) * 0.5
        y = torch.tanh(y) if i & 1 else -y
        y = torch.sin(y) if i & 2 else y * 0.5
        y = torch.cos(y) if i & 4 else y + 1
        y = torch.sigmoid(y) if i & 8 else y * y
        y = torch.abs(y) if i & 16 else y - 0.25
    return y


def figures(torch):
    """(figure name, impl, unit, calls, amount per call, setup -> fn). The figure is amount /
    seconds per call, or for us/node seconds * 1e6 / amount."""
    F = torch.nn.functional
    gen = torch.Generator(device="cuda").manual_seed(0)

    def rand(*shape):
        return torch.rand(*shape, device="cuda", generator=gen) * 4 - 2

    def chain():
        x = rand(CHAIN_ELEMS)
        return lambda: chain8(torch, x)

    def rows(op, cols):
        def setup():
            m, w, b = rand(ROWS_ELEMS // cols, cols), rand(cols), rand(cols)
            if op == "softmax":
                return lambda: torch.softmax(m, -1)
            return lambda: F.layer_norm(m, (cols,), w, b)
        return setup

    def replay():
        x = rand(64, 64)
        return lambda: replay_ops(torch, x)

    def mlp():
        x = rand(MLP_BATCH, MLP_WIDTH)
        ws = [rand(MLP_WIDTH, MLP_WIDTH) / 16 for _ in range(MLP_LAYERS)]
        bs = [rand(MLP_WIDTH) for _ in range(MLP_LAYERS)]

        def forward(h=x):
            for i in range(MLP_LAYERS):
                h = F.linear(h, ws[i], bs[i])
                if i + 1 < MLP_LAYERS:
                    h = torch.relu(h)
            return h
        return forward

    def mlp_chain(graph):
        """x = tanh(mlp(x)), each step on the previous one's output. A CUDA graph replays on
        its captured buffers, so its step copies the output into the input."""
        def setup():
            forward = mlp()
            x = rand(MLP_BATCH, MLP_WIDTH)
            state = [x]

            def step():
                if graph:
                    x[...] = torch.tanh(forward(x))  # a copy kernel into the captured input
                else:
                    state[0] = torch.tanh(forward(state[0]))
                return state[0]
            return step
        return setup

    chain_gb = 2 * CHAIN_ELEMS * 4 / 1e9
    rows_gb = 2 * ROWS_ELEMS * 4 / 1e9
    out = [
        ("gpu_chain8_256M", "torch_eager", "GB/s", BIG_CALLS, chain_gb, chain),
        ("gpu_chain8_vs_compile", "torch_compile", "GB/s", BIG_CALLS, chain_gb, chain),
    ]
    for op in ("softmax", "layernorm"):
        for cols in (4096, 32768, 262144):
            name = f"gpu_{op}_{cols}"
            out += [
                (name, "torch_eager", "GB/s", BIG_CALLS, rows_gb, rows(op, cols)),
                (f"{name}_vs_compile", "torch_compile", "GB/s", BIG_CALLS, rows_gb,
                 rows(op, cols)),
            ]
    out += [
        ("graph_replay_200", "torch_eager", "us/node", SMALL_CALLS, REPLAY_NODES, replay),
        ("graph_replay_200", "torch_cuda_graph", "us/node", SMALL_CALLS, REPLAY_NODES, replay),
        ("mlp_step_small", "torch_eager", "steps/s", SMALL_CALLS, 1, mlp),
        ("mlp_step_small_vs_cudagraph", "torch_cuda_graph", "steps/s", SMALL_CALLS, 1, mlp),
        ("mlp_chain_small", "torch_eager", "steps/s", SMALL_CALLS, 1, mlp_chain(False)),
        ("mlp_chain_small_vs_cudagraph", "torch_cuda_graph", "steps/s", SMALL_CALLS, 1,
         mlp_chain(True)),
    ]
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--only", default="", help="figures whose names start with it")
    # The rest (--address, --cache-dir, ...) is tensord-bench-fusion-gpu's: scripts/bench gives
    # both the same arguments.
    args, _ = parser.parse_known_args()
    if args.repeats < 1 or args.warmup < 0:
        parser.error("--repeats must be >= 1 and --warmup >= 0")
    torch = cuda_torch("torch_gpu_peer.py")
    if torch is None:
        return 77
    torch.set_float32_matmul_precision("highest")  # tensord's default precision
    failures = 0
    for name, impl, unit, calls, amount, setup in figures(torch):
        if not name.startswith(args.only):
            continue
        fn = run = None
        try:
            fn = setup()
            if impl == "torch_eager":
                run = fn
            elif impl == "torch_compile":
                run = torch.compile(fn)
            elif impl == "torch_cuda_graph":
                run = as_graph(torch, fn)
            else:
                raise ValueError(f"unknown implementation {impl}")
            s = seconds_per_call(torch, run, calls, args.warmup, args.repeats)
            value = s * 1e6 / amount if unit == "us/node" else amount / s
            emit(bench=name, impl=impl, value=value, unit=unit, median_ms=s * 1e3, calls=calls,
                 repeats=args.repeats)
        except Exception as e:  # noqa: BLE001 (report and go on)
            emit(bench=name, impl=impl, error=f"{type(e).__name__}: {e}")
            failures += 1
        fn = run = None  # the inputs, compiled code and captured graph of this figure go
        torch.cuda.empty_cache()
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
