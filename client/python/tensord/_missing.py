"""Array API functions the engine has no op for yet: each raises NotImplementedError naming
the op. README.md lists them too."""

MISSING = (
    # elementwise
    "conj", "imag", "real",
    # statistical, searching, sorting, sets, utilities
    "argsort", "sort",
    "unique_all",
)


def _missing(name):
    def f(*args, **kwargs):
        raise NotImplementedError(f"tensord: {name} is not an engine op yet")
    f.__name__ = name
    f.__doc__ = f"Not available yet: the engine has no {name} op."
    return f


FUNCTIONS = {name: _missing(name) for name in MISSING}
