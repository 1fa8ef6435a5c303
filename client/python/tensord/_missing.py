"""Array API functions the engine has no op for yet: each raises NotImplementedError naming
the op. README.md lists them too."""

MISSING = (
    # elementwise
    "acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "bitwise_and",
    "bitwise_left_shift", "bitwise_invert", "bitwise_or", "bitwise_right_shift", "bitwise_xor",
    "conj", "copysign", "cosh", "expm1", "floor_divide", "hypot", "imag", "log1p", "log2", "log10",
    "logaddexp", "nextafter", "real", "remainder", "signbit", "sinh", "tan",
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
