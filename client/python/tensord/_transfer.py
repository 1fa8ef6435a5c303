"""Large transfers: NumPy arrays go through a HostBuffer (a memfd the daemon maps when it runs
on this host), so an upload or download copies the bytes once; over TCP the C++ client streams
the buffer in chunks. Progress bars (tqdm) show transfers over 64 MiB.
"""
import sys

import numpy as np

from . import _dtypes, _tensord

# Arrays up to one message chunk travel inside the run call; larger ones use a HostBuffer.
LARGE_BYTES = 4 << 20
PROGRESS_BYTES = 64 << 20


def from_numpy(session, dtype, a, loc):
    """A tensor of the C-contiguous array `a` (already of the engine dtype's NumPy type)."""
    if a.nbytes <= LARGE_BYTES:
        return session.from_array(dtype, list(a.shape), a, loc)
    buffer = _tensord.host_buffer(session, a.nbytes)  # reused memory when one is free
    np.frombuffer(buffer, dtype=a.dtype).reshape(a.shape)[...] = a  # the one copy
    return _tensord.from_buffer(session, dtype, list(a.shape), buffer, loc)


def to_numpy(tensor, loc):
    """The tensor's values as a NumPy array (bfloat16 as its uint16 bit patterns). Large ones
    are views of the HostBuffer the daemon wrote into: no copy on this side."""
    if tensor.dtype == _tensord.DType.bfloat16:
        numpy_dtype = np.dtype(np.uint16)
    else:
        numpy_dtype = _dtypes.from_engine(tensor.dtype).numpy_dtype
    if None in tensor.shape:  # a data-dependent size: sync to learn it
        from . import _session
        _session.session().sync([tensor], loc)
    nbytes = numpy_dtype.itemsize
    for d in tensor.shape:
        nbytes *= d
    if nbytes <= LARGE_BYTES:
        return tensor.fetch(loc)
    buffer = _tensord.fetch_buffer(tensor, loc)
    return np.frombuffer(buffer, dtype=numpy_dtype).reshape(tensor.shape)


class _Options:
    progress = None  # None: when stderr is a terminal or a notebook kernel runs us


options = _Options()


def set_progress(enabled):
    """Progress bars for transfers over 64 MiB: True, False, or None (the default: shown when
    stderr is a terminal or in a notebook)."""
    if enabled not in (None, True, False):
        raise TypeError("set_progress takes True, False or None")
    options.progress = enabled


def _wanted():
    if options.progress is not None:
        return options.progress
    if "ipykernel" in sys.modules:
        return True
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


def _make_bar(total, upload):
    try:
        if "ipykernel" in sys.modules:
            from tqdm.auto import tqdm
        else:
            from tqdm import tqdm
    except ImportError:  # tqdm is optional: no bar without it
        return None
    return tqdm(total=total, unit="B", unit_scale=True, unit_divisor=1024, leave=False,
                desc="tensord upload" if upload else "tensord download")


class ProgressObserver:
    """Receives the C++ client's TransferProgress and drives one tqdm bar per transfer."""

    def __init__(self):
        self.bar = None
        self.shown = 0

    def __call__(self, p):
        if p.done == 0:
            self.close()
            if p.total > PROGRESS_BYTES and _wanted():
                self.bar = _make_bar(p.total, p.upload)
            return
        if self.bar is not None:
            self.bar.update(p.done - self.shown)
            self.shown = p.done
            if p.done >= p.total:
                self.close()

    def close(self):
        if self.bar is not None:
            self.bar.close()
        self.bar = None
        self.shown = 0


def attach(session):
    _tensord.on_transfer(session, ProgressObserver())
