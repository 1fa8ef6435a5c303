"""Fusion (issue 6): the session's compile mode, and how the daemon plans arrays' work."""
from . import _tensord
from ._array import Array
from ._location import caller
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


class Function:
    """`fn` kept on the daemon: see `function`."""

    def __init__(self, fn):
        self._fn = fn
        self._kept = None  # (session, _tensord.Function) of the session it was made on
        self._structure = {}  # per signature: whether fn returned one array (not a sequence)
        self.__doc__ = getattr(fn, "__doc__", None)
        self.__name__ = getattr(fn, "__name__", "function")

    @property
    def traces(self):
        """How many argument signatures were traced (each one graph on the daemon)."""
        return 0 if self._kept is None else self._kept[1].traces

    def __call__(self, *args):
        s = session()
        if self._kept is None or self._kept[0] is not s:
            self._kept = (s, _tensord.function(s, self._body))
        for i, a in enumerate(args):
            if not isinstance(a, Array):
                raise TypeError(f"{self.__name__}: argument {i} is a {type(a).__name__}, "
                                "not a tensord array (td.asarray makes one)")
        results = self._kept[1]([a._t for a in args], caller())
        signature = tuple((a.dtype, a.shape) for a in args)  # after the call: sizes known
        arrays = [Array(t) for t in results]
        return arrays[0] if self._structure.get(signature) else tuple(arrays)

    def _body(self, tensors):
        out = self._fn(*[Array(t) for t in tensors])
        single = isinstance(out, Array)
        self._structure[tuple((Array(t).dtype, Array(t).shape) for t in tensors)] = single
        outs = [out] if single else list(out) if isinstance(out, (tuple, list)) else [out]
        for i, o in enumerate(outs):
            if not isinstance(o, Array):
                raise TypeError(f"{self.__name__}: result {i} is a {type(o).__name__}, "
                                "not a tensord array")
        return [o._t for o in outs]


def function(fn):
    """`fn` (arrays in, an array or a tuple of arrays out) kept on the daemon and called with
    new arguments, as `jax.jit` does: traced once per argument signature (dtypes and shapes),
    then each call sends only its arguments and runs the kept graph (on a GPU in
    "reduce-overhead" mode, a CUDA graph replay), skipping the graph's recording, transfer,
    validation and plan lookup. Usable as a decorator.

    A call returns once sent, as a torch kernel launch does; its results' values are waited
    for when used, and a call that failed on the daemon raises its TensorError there.
    Arrays `fn` reads that are not arguments are captured as they are when it is traced;
    pass what changes between calls as arguments. Values recorded inside `fn` exist only as
    its results: syncing one that escaped raises TensorError."""
    return Function(fn)
