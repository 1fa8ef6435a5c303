"""The current session: the one piece of module state, like torch's default device.

`td.connect()` opens a session with a daemon and makes it current; creation functions
(`td.asarray`, `td.zeros`, `td.random.normal`, ...) record on the current session, and every
other op on the session of its inputs. Sessions belong to the thread that opened them (the C++
client runs its event loop there), so each thread has its own current session.
"""
import os
import threading

from . import _tensord, _transfer


class _Current(threading.local):
    """Holds this thread's current session; `td.connect` replaces it."""

    def __init__(self):
        self.session = None
        self.address = None


current = _Current()


def connect(address=None, token=None, name=None):
    """Connects to `address` ("unix:PATH" or "tcp:HOST:PORT"; default $TENSORD_ADDRESS, else
    the local daemon's socket) and makes the session current on this thread. `name` labels the
    session in the daemon's log and dashboard (default "python"). This thread's previous
    session ends once no array recorded on it is left."""
    if address is None:
        address = os.environ.get("TENSORD_ADDRESS") or _tensord.default_address()
    current.session = None  # a thread holds one session at a time: drop ours first
    current.session = _tensord.connect(address, token or "", name or "python")
    _transfer.attach(current.session)
    current.address = address
    return current.session


def session():
    """This thread's current session; RuntimeError if td.connect() was not called on it."""
    if current.session is None:
        raise RuntimeError("tensord: no session on this thread; call tensord.connect() first "
                           "(a session belongs to the thread that opened it)")
    return current.session


def info():
    """The daemon, its devices and this session's memory, as a dict."""
    s = session()
    server = s.info
    stats = s.stats()
    from ._repr import Info
    return Info({
        "address": current.address,
        "daemon_version": server.daemon_version,
        "devices": [{"kind": d.kind, "index": d.index, "name": d.name,
                     "total_memory": d.total_memory, "threads": d.threads}
                    for d in server.devices],
        "session": {"live_tensors": stats.live_tensors, "live_bytes": stats.live_bytes,
                    "runs": stats.runs, "daemon_live_tensors": stats.daemon_live_tensors,
                    "daemon_live_bytes": stats.daemon_live_bytes,
                    # What holds live_bytes, largest first (at most 3): where the arrays were made.
                    "holdings": [{"origin": h.origin, "bytes": h.bytes, "tensors": h.tensors}
                                 for h in stats.holdings]},
    })
