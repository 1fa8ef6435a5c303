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
    `str()` gives the readable form. Builds and caches the plan, waiting for kernels that
    compile in the background (a new graph's first runs go unfused meanwhile); runs nothing."""
    if not arrays:
        raise ValueError("explain needs at least one array")
    return _tensord.explain([a._t for a in arrays])


def kernel_cache_stats():
    """The daemon's compiled-kernel cache: hits in memory and on disk, kernels compiled,
    compiler runs and time, and this session's compile mode; `caches` lists every cache
    (the host's, then each GPU's own NVRTC cache, e.g. "cuda:0") with the same figures."""
    return _tensord.kernel_cache_stats(session())


# Stands for an array argument in a call's layout; anything else there is a static argument.
_ARRAY = object()


class Function:
    """`fn` kept on the daemon: see `function`."""

    def __init__(self, fn):
        self._fn = fn
        self._session = None
        # Per layout of the arguments (which are arrays, and the values of the static ones):
        # the daemon's function and, per signature, whether fn returned one array.
        self._kept = {}
        self.__doc__ = getattr(fn, "__doc__", None)
        self.__name__ = getattr(fn, "__name__", "function")

    @property
    def traces(self):
        """How many signatures were traced (each one graph on the daemon)."""
        return sum(kept.traces for kept, _ in self._kept.values())

    def __call__(self, *args, **kwargs):
        kept, arrays = self._kept_for(args, kwargs)
        results = kept[0]([a._t for a in arrays], caller())
        signature = tuple((a.dtype, a.shape) for a in arrays)  # after the call: sizes known
        out = [Array(t) for t in results]
        return out[0] if kept[1].get(signature) else tuple(out)

    def explain(self, *args, **kwargs):
        """The plan a call with these arguments would use now (traced first if new), as
        `td.explain` shows it: fused groups, boundaries, caches, CUDA-graph replay. Runs
        nothing."""
        kept, arrays = self._kept_for(args, kwargs)
        return kept[0].explain([a._t for a in arrays], caller())

    def _kept_for(self, args, kwargs):
        """The daemon's function for this layout of arguments, and the array arguments."""
        s = session()
        if self._session is not s:
            self._session, self._kept = s, {}
        arrays = []

        def slot(value):
            if isinstance(value, Array):
                arrays.append(value)
                return _ARRAY
            return value

        layout = (tuple(slot(a) for a in args),
                  tuple((k, slot(v)) for k, v in sorted(kwargs.items())))
        try:
            kept = self._kept.get(layout)
        except TypeError:
            bad = next(v for v in list(args) + list(kwargs.values())
                       if not isinstance(v, Array) and not _hashable(v))
            raise TypeError(f"{self.__name__}: a {type(bad).__name__} argument is neither a "
                            "tensord array (td.asarray makes one) nor a hashable value (other "
                            "arguments are static: part of what is traced)") from None
        if kept is None:
            single = {}
            kept = self._kept[layout] = (
                _tensord.function(s, lambda tensors: self._body(tensors, layout, single)), single)
        return kept, arrays

    def _body(self, tensors, layout, single):
        stand_ins = iter([Array(t) for t in tensors])
        positional, keywords = layout
        args = [next(stand_ins) if v is _ARRAY else v for v in positional]
        kwargs = {k: next(stand_ins) if v is _ARRAY else v for k, v in keywords}
        out = self._fn(*args, **kwargs)
        signature = tuple((Array(t).dtype, Array(t).shape) for t in tensors)
        single[signature] = isinstance(out, Array)
        outs = [out] if isinstance(out, Array) or not isinstance(out, (tuple, list)) else list(out)
        for i, o in enumerate(outs):
            if not isinstance(o, Array):
                raise TypeError(f"{self.__name__}: result {i} is a {type(o).__name__}, "
                                "not a tensord array")
        return [o._t for o in outs]


def _hashable(value):
    try:
        hash(value)
        return True
    except TypeError:
        return False


def function(fn):
    """`fn` (arrays in, an array or a tuple of arrays out) kept on the daemon and called with
    new arguments, as `jax.jit` does: traced once per argument signature (dtypes and shapes),
    then each call sends only its arguments and runs the kept graph (on a GPU in
    "reduce-overhead" mode, a CUDA graph replay), skipping the graph's recording, transfer,
    validation and plan lookup. Usable as a decorator.

    Arguments that are not arrays (numbers, strings, tuples: hashable values) are static: fn
    sees them as they are when it is traced, and each new value is a new trace (jax's
    static_argnums). A call returns once sent, as a torch kernel launch does; its results'
    values are waited for when used, and a call that failed on the daemon raises its
    TensorError there. An array result fed to another call goes as a promise, without waiting.
    Arrays `fn` reads that are not arguments are captured as they are when it is traced;
    pass what changes between calls as arguments. Values recorded inside `fn` exist only as
    its results: syncing one that escaped raises TensorError."""
    return Function(fn)
