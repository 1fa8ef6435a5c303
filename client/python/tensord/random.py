"""Seeded random arrays: counter-based (Philox), so a seed gives the same numbers on every
backend. Without a seed, one is drawn from the operating system."""
import secrets

from . import _dtypes, _session, _tensord
from ._array import Array
from ._creation import _shape
from ._location import caller


def _seed(seed):
    return secrets.randbits(63) if seed is None else int(seed)


def normal(loc=0.0, scale=1.0, size=(), *, seed=None, dtype=None):
    """Normal samples with mean `loc` and standard deviation `scale`."""
    d = _dtypes.to_dtype(dtype) if dtype is not None else _dtypes.default_float
    where = caller()
    t = _session.session().randn(_shape(size), _seed(seed), d._engine, where)
    if scale != 1.0:
        t = _tensord.mul(t, scale, where)
    if loc != 0.0:
        t = _tensord.add(t, loc, where)
    return Array(t)


def uniform(low=0.0, high=1.0, size=(), *, seed=None, dtype=None):
    """Uniform samples in [low, high)."""
    d = _dtypes.to_dtype(dtype) if dtype is not None else _dtypes.default_float
    where = caller()
    t = _session.session().rand(_shape(size), _seed(seed), d._engine, where)
    if high - low != 1.0:
        t = _tensord.mul(t, high - low, where)
    if low != 0.0:
        t = _tensord.add(t, low, where)
    return Array(t)
