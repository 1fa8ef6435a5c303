"""Fusion (issue 6): the session's compile mode, and how the daemon plans arrays' work."""
from . import _tensord
from ._session import session


def set_compile_mode(mode):
    """"eager" (no fusion), "default" (fuse elementwise chains and row reductions into
    generated kernels), "reduce-overhead" or "max-autotune" (on the CPU both plan as
    "default"). An unknown name raises TensorError."""
    _tensord.set_compile_mode(session(), mode)


def explain(*arrays):
    """How the daemon would plan the pending work behind `arrays` in the session's compile
    mode: fused groups (`.groups`, each with its `.ops`), why the others did not fuse
    (`.boundaries`), whether the plan and kernels were cached, whether it is captured;
    `str()` gives the readable form. Builds and caches the plan; runs nothing."""
    if not arrays:
        raise ValueError("explain needs at least one array")
    return _tensord.explain([a._t for a in arrays])


def kernel_cache_stats():
    """The daemon's compiled-kernel cache: hits in memory and on disk, kernels compiled,
    compiler runs and time, and this session's compile mode; `caches` lists every cache
    (the host's, then each GPU's own NVRTC cache, e.g. "cuda:0") with the same figures."""
    return _tensord.kernel_cache_stats(session())
