"""Array API functions the engine has no op for yet: each raises NotImplementedError naming
the op. README.md lists them too."""

MISSING = (
    # elementwise
    "conj", "imag", "nextafter", "real",
    # creation
    "linspace", "meshgrid", "tril", "triu",
    # statistical, searching, sorting, sets, utilities
    "cumulative_sum", "cumulative_prod", "nonzero", "searchsorted", "argsort", "sort",
    "unique_all", "unique_counts", "unique_inverse", "unique_values", "diff",
    # manipulation and linear algebra
    "repeat", "tile",
)


def _missing(name):
    def f(*args, **kwargs):
        raise NotImplementedError(f"tensord: {name} is not an engine op yet")
    f.__name__ = name
    f.__doc__ = f"Not available yet: the engine has no {name} op."
    return f


FUNCTIONS = {name: _missing(name) for name in MISSING}
