"""How arrays and td.info() show: repr (a sync point, like print) and the notebook's
_repr_html_, which shows "pending" instead of evaluating a large unevaluated array."""
import html

import numpy as np

from . import _session

# _repr_html_ evaluates pending arrays up to this many elements, and fetches evaluated ones up
# to this many bytes; larger ones say where they are instead.
HTML_SYNC_ELEMENTS = 1000
HTML_FETCH_BYTES = 16 << 20


class Device:
    """A device of the daemon: `kind:index` (e.g. cpu:0), with its name when known."""

    __slots__ = ("kind", "index", "name")

    def __init__(self, kind, index, name=""):
        self.kind, self.index, self.name = kind, index, name

    def __eq__(self, other):
        return isinstance(other, Device) and (self.kind, self.index) == (other.kind, other.index)

    def __hash__(self):
        return hash((self.kind, self.index))

    def __str__(self):
        return f"{self.kind}:{self.index}"

    def __repr__(self):
        return f"tensord.Device('{self}')" + (f"  # {self.name}" if self.name else "")


def current_device():
    """The device arrays of the current session live on (the daemon's first device)."""
    cache = _session.current
    device = getattr(cache, "device", None)
    if device is None or getattr(cache, "device_of", None) is not cache.session:
        s = cache.session
        d = s.info.devices[0] if s is not None and s.info.devices else None
        device = Device(d.kind, d.index, d.name) if d is not None else Device("unknown", 0)
        cache.device, cache.device_of = device, s
    return device


def _values(x):
    return np.array2string(_printable(x), separator=", ", prefix="tensord.asarray(")


def _printable(x):
    """What NumPy prints for x. Past NumPy's summarisation threshold only the edges are
    fetched (one round trip, whatever x's size): they are written into a full-shape array of
    zero pages that are never touched elsewhere (calloc), so NumPy summarises it exactly as it
    would x while reading only what we fetched."""
    if None in x.shape:
        from ._functions import sync
        sync(x)  # a data-dependent size: learn it first
    opts = np.get_printoptions()
    if x.size <= opts["threshold"]:
        return x.numpy()
    keep = opts["edgeitems"]
    picks, edges = [], x
    for axis, n in enumerate(x.shape):
        if n <= 2 * keep:
            picks.append(np.arange(n))
            continue
        picks.append(np.r_[0:keep, n - keep:n])
        lead = (slice(None),) * axis
        from ._functions import concat
        edges = concat([edges[lead + (slice(0, keep),)], edges[lead + (slice(n - keep, n),)]],
                       axis=axis)
    fetched = edges.numpy()
    try:
        whole = np.zeros(x.shape, dtype=fetched.dtype)
    except MemoryError:  # more address space than the kernel grants: show the edges alone
        return fetched
    whole[np.ix_(*picks)] = fetched
    return whole


def array_repr(x):
    return (f"tensord.asarray({_values(x)}, shape={x.shape}, dtype={x.dtype.name}, "
            f"device='{x.device}')")


def _display_body(x):
    """The values if they are cheap to get, else where they are."""
    nbytes = x.size * x.dtype.numpy_dtype.itemsize
    if x._t.materialized:
        if nbytes <= HTML_FETCH_BYTES:
            return _values(x)
        return f"on the daemon ({nbytes / (1 << 20):.1f} MiB); x.numpy() fetches it"
    if x.size <= HTML_SYNC_ELEMENTS:
        return _values(x)  # small: one cheap round trip
    return "pending (not evaluated yet; td.sync(x) or x.numpy() evaluates it)"


def array_pretty(x, p, cycle):
    """IPython's plain-text display (it asks for it beside the HTML one): no sync for large
    pending arrays either, unlike repr()."""
    p.text(f"tensord.Array {_display_body(x)}, shape={x.shape}, dtype={x.dtype.name}, "
           f"device='{x.device}'")


def array_html(x):
    device = x.device
    facts = (f"shape={x.shape} dtype={x.dtype.name} device={device}"
             + (f" ({device.name})" if device.name else ""))
    body = _display_body(x)
    return (f"<div class='tensord-array'><pre>{html.escape(body)}</pre>"
            f"<small>tensord.Array {html.escape(facts)}</small></div>")


def _mib(n):
    return f"{n / (1 << 20):.1f} MiB"


class Info(dict):
    """td.info()'s answer: a dict, shown as a table in notebooks."""

    def _repr_html_(self):
        rows = [("address", self["address"]), ("daemon version", self["daemon_version"])]
        for d in self["devices"]:
            rows.append((f"device {d['kind']}:{d['index']}",
                         f"{d['name']}, {_mib(d['total_memory'])}, {d['threads']} threads"))
        s = self["session"]
        rows.append(("this session", f"{s['live_tensors']} arrays, {_mib(s['live_bytes'])}, "
                                     f"{s['runs']} runs"))
        if s.get("holdings"):
            rows.append(("held most by", ", ".join(f"{h['origin']} {_mib(h['bytes'])}"
                                                   for h in s["holdings"])))
        rows.append(("whole daemon", f"{s['daemon_live_tensors']} arrays, "
                                     f"{_mib(s['daemon_live_bytes'])}"))
        cells = "".join(f"<tr><th style='text-align:left'>{html.escape(str(k))}</th>"
                        f"<td style='text-align:left'>{html.escape(str(v))}</td></tr>"
                        for k, v in rows)
        return f"<table class='tensord-info'>{cells}</table>"
