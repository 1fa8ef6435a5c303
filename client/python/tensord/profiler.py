"""Profiling the daemon's work for this session (docs/profiler.md).

    with td.profile(memory=True) as prof:
        y = (x @ w).sum(); y.item()
    prof.export_chrome_trace("trace.json")     # Perfetto / chrome://tracing
    print(prof.key_averages())                 # op, calls, self/total time, memory
    prof.memory_timeline("memory.png")         # a plot if matplotlib is installed
    for r in prof.recommendations(): print(r)

The daemon streams the trace while the work runs; leaving the `with` block stops the profile
and waits for what the daemon still holds. Records the daemon had to drop because this client
read too slowly are counted: `prof.dropped`.
"""
from collections import namedtuple

from . import _session, _tensord

Recommendation = namedtuple("Recommendation", "rule message evidence")


class KeyAverages(list):
    """Rows (dicts: key, calls, self_us, total_us, alloc_bytes, source), largest total first;
    str() is a table like torch.profiler's."""

    def table(self, row_limit=20):
        head = f"{'op':<24}{'calls':>8}{'self us':>14}{'total us':>14}{'memory':>12}  source"
        lines = [head, "-" * len(head)]
        for r in self[:row_limit]:
            lines.append(f"{r['key'][:23]:<24}{r['calls']:>8}{r['self_us']:>14.1f}"
                         f"{r['total_us']:>14.1f}{_bytes(r['alloc_bytes']):>12}  {r['source']}")
        return "\n".join(lines)

    def __str__(self):
        return self.table()


def _bytes(n):
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return str(n)


class profile:
    """A profile of the current session (or `session`): a context manager, or call start() and
    stop() yourself. `trace` records spans of every stage and step, `memory` every allocation
    with its op and source line; `buffer_records` bounds what the daemon holds for a slow
    reader."""

    def __init__(self, memory=False, trace=True, buffer_records=16384, session=None):
        self._options = (trace, memory, buffer_records)
        self._session = session
        self._p = None

    def start(self):
        s = self._session or _session.session()
        self._p = _tensord.profile(s, *self._options)
        return self

    def stop(self):
        if self._p is not None:
            self._p.stop()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
        return False

    def _profile(self):
        if self._p is None:
            raise RuntimeError("tensord: the profile was not started")
        return self._p

    @property
    def dropped(self):
        return self._profile().dropped()

    @property
    def record_count(self):
        return self._profile().record_count()

    def export_chrome_trace(self, path):
        """Writes Chrome Trace Event JSON, which Perfetto and chrome://tracing open."""
        self._profile().export_chrome_trace(str(path))

    def export_compact(self, path):
        """Writes the compact binary form (for long sessions; docs/profiler.md)."""
        self._profile().export_compact(str(path))

    def key_averages(self):
        return KeyAverages(self._profile().key_averages())

    def memory_snapshot(self):
        """The device's segments now, each with this session's live blocks inside it, as
        torch.cuda.memory._snapshot() gives them: {"segments": [{address, total_size, stream,
        category, allocated_size, blocks: [{address, size, state, category, op, source,
        request, stream, device_owned}]}], "outside": [blocks in no segment (small host blocks
        from malloc)]}. `state` is "active_allocated", or "active_pending_free" for a block
        freed while other CUDA streams still use it. Device-owned blocks (library workspaces,
        graph pools) are listed too. The part of a segment no block covers is cached free
        memory or other sessions' blocks."""
        return self._profile().memory_snapshot()

    def memory_summary(self):
        """One dict per memory category (tensor, staging, scratch, workspace, graph_pool):
        allocated and reserved bytes at the end of the profile and at their peak, the blocks
        allocated, and the frees that completed after their request (CUDA blocks other streams
        still used)."""
        return self._profile().memory_summary()

    def held_before(self):
        """What the session held when the profile began: {"bytes": its live tensor bytes,
        "holdings": the largest of them by origin, at most 3, as td.info()'s session holdings
        ({origin, bytes, tensors})}. 0 and [] from a daemon older than protocol 1.8."""
        return self._profile().held_before()

    def memory_timeline(self, path=None, reserved_by_category=False):
        """Memory over time: a list of (time_us, {category: bytes}, reserved_bytes) after each
        memory event: the session's bytes by category and the device's reserved bytes (its
        allocators' segments and host staging). The first category, "held_before_profile", is
        what the session held when the profile began (held_before()); it drops when those of
        its tensors the daemon tracked (made while an earlier memory profile ran) are freed,
        and the profile cannot see the others go. The others ("tensor", "staging", "scratch",
        "workspace", "graph_pool") are the blocks allocated since, and the device's own
        (library workspaces, CUDA graph pools). A free counts when it completes (a CUDA block
        other streams still use completes later than requested). With
        reserved_by_category=True each point has a fourth item, the reserved bytes by category
        (staging: pinned and cached host buffers). With matplotlib installed, also plots them
        (allocated stacked by category, reserved as a line) and saves the plot to `path` if
        given; returns (points, figure) then."""
        points = self._profile().memory_timeline(reserved_by_category)
        try:
            import matplotlib
            if path is not None:
                matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            return points
        fig, ax = plt.subplots(figsize=(10, 4))
        if points:
            times = [pt[0] for pt in points]
            categories = [c for c in points[0][1] if any(pt[1][c] for pt in points)]
            ax.stackplot(times, *[[pt[1][c] / 2**20 for pt in points] for c in categories],
                         labels=["held before the profile" if c == "held_before_profile"
                                 else f"allocated: {c}" for c in categories], step="post")
            ax.step(times, [pt[2] / 2**20 for pt in points], where="post", color="black",
                    label="reserved")
            ax.legend(loc="upper left")
        ax.set_xlabel("time (us since the profile started)")
        ax.set_ylabel("MiB")
        ax.set_title("tensord memory timeline")
        if path is not None:
            fig.savefig(str(path))
        return points, fig

    def recommendations(self):
        return [Recommendation(**r) for r in self._profile().recommendations()]
