"""NumPy's functions and ufuncs called on tensord arrays run in the daemon (NEP 13's
__array_ufunc__ and NEP 18's __array_function__, as CuPy and Dask arrays do): np.sin(x) is
td.sin(x), np.concatenate([x, y]) is td.concatenate, np.linalg.inv(x) is td.linalg.inv, and
the results stay tensord arrays. A call tensord cannot take as NumPy means it (an `out=`
argument, a ufunc method other than a plain call, a keyword tensord's function does not have, a
case it raises NotImplementedError for, a function tensord does not have, or one whose tensord
namesake means something else) runs in NumPy on fetched copies, as it did before dispatch
existed: the result is then a NumPy array.
"""
import inspect

from ._methods import _td

# NumPy ufunc names whose tensord function has another name.
_UFUNC_NAMES = {
    "invert": "bitwise_invert",
    "left_shift": "bitwise_left_shift",
    "right_shift": "bitwise_right_shift",
}

# Functions tensord has under the same name with other semantics: np.split(x, 3) makes three
# parts where td.split makes parts of 3 (torch's); td.take without an axis follows the Array
# API and torch; td.median and td.nanmedian give the lower of the two middle values (torch's),
# np.median their mean; td.result_type and td.can_cast answer with tensord dtypes, where
# callers of NumPy's expect NumPy's.
_NOT_DISPATCHED = {"numpy": {"split", "take", "median", "nanmedian", "result_type",
                             "can_cast"},
                   "numpy.linalg": {"norm"}}

_MODULES = {"numpy": "", "numpy.linalg": "linalg", "numpy.fft": "fft"}

_signatures = {}


def _fetched(value):
    """NumPy copies of every tensord array in value (nested lists and tuples included)."""
    from ._array import Array
    if isinstance(value, Array):
        return value.numpy()
    if isinstance(value, (list, tuple)):
        return type(value)(_fetched(v) for v in value)
    if isinstance(value, dict):
        return {k: _fetched(v) for k, v in value.items()}
    return value


def _binds(fn, args, kwargs):
    sig = _signatures.get(fn)
    if sig is None:
        try:
            sig = _signatures[fn] = inspect.signature(fn)
        except (TypeError, ValueError):
            return False
    try:
        sig.bind(*args, **kwargs)
    except TypeError:
        return False
    return True


def _namesake(module, name):
    td = _td()
    if module not in _MODULES or name in _NOT_DISPATCHED.get(module, ()):
        return None
    namespace = getattr(td, _MODULES[module]) if _MODULES[module] else td
    fn = getattr(namespace, name, None)
    return fn if callable(fn) else None


def array_ufunc(ufunc, method, inputs, kwargs):
    if method == "__call__" and not kwargs:
        fn = _namesake("numpy", _UFUNC_NAMES.get(ufunc.__name__, ufunc.__name__))
        if fn is not None and _binds(fn, inputs, {}):
            return fn(*inputs)
    return getattr(ufunc, method)(*_fetched(inputs), **_fetched(kwargs))


def array_function(func, args, kwargs):
    module = func.__module__ or ""
    fn = _namesake(module, func.__name__)
    if fn is not None and fn is not func and _binds(fn, args, kwargs):
        try:
            return fn(*args, **kwargs)
        except NotImplementedError:  # a case tensord's function lacks (np.pad's other modes)
            pass
    return func(*_fetched(args), **_fetched(kwargs))
