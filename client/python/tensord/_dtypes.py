"""Dtype objects (td.float32, ...), their NumPy counterparts, and finfo/iinfo."""
import numpy as np

from . import _tensord


class DType:
    """A tensord dtype. Compare with `==` or `is`; `numpy_dtype` is what `x.numpy()` returns
    (float32 for bfloat16, which NumPy lacks)."""

    __slots__ = ("name", "_engine", "numpy_dtype", "kind")

    def __init__(self, name, kind, numpy_dtype):
        self.name = name
        self.kind = kind  # "bool", "signed integer", "unsigned integer", "real floating"
        self._engine = getattr(_tensord.DType, name)
        self.numpy_dtype = np.dtype(numpy_dtype)

    def __repr__(self):
        return f"tensord.{self.name}"

    def __reduce__(self):
        return self.name


bool = DType("bool", "bool", "bool")  # noqa: A001 (the Array API name)
int8 = DType("int8", "signed integer", "int8")
uint8 = DType("uint8", "unsigned integer", "uint8")
int16 = DType("int16", "signed integer", "int16")
int32 = DType("int32", "signed integer", "int32")
int64 = DType("int64", "signed integer", "int64")
float16 = DType("float16", "real floating", "float16")
bfloat16 = DType("bfloat16", "real floating", "float32")
float32 = DType("float32", "real floating", "float32")
float64 = DType("float64", "real floating", "float64")
# Issue 4: complex dtypes (pairs of float32 / float64), NumPy's complex64 / complex128.
complex64 = DType("complex64", "complex floating", "complex64")
complex128 = DType("complex128", "complex floating", "complex128")

ALL = (bool, int8, uint8, int16, int32, int64, float16, bfloat16, float32, float64, complex64,
       complex128)
_BY_ENGINE = {d._engine: d for d in ALL}
_BY_NUMPY = {d.numpy_dtype: d for d in ALL if d is not bfloat16}

default_float = float32
default_int = int64


def from_engine(engine_dtype):
    return _BY_ENGINE[engine_dtype]


def from_numpy(numpy_dtype):
    """The tensord dtype of a NumPy dtype; TypeError for those tensord lacks."""
    d = _BY_NUMPY.get(np.dtype(numpy_dtype))
    if d is None:
        raise TypeError(f"tensord has no dtype for NumPy's {np.dtype(numpy_dtype)}")
    return d


def to_dtype(dtype):
    """A DType from a DType, a NumPy dtype or a name ("float32")."""
    if isinstance(dtype, DType):
        return dtype
    if isinstance(dtype, str) and dtype == "bfloat16":
        return bfloat16
    return from_numpy(dtype)


def is_floating(d):
    return d.kind == "real floating"


def is_complex(d):
    return d.kind == "complex floating"


def complex_of(d):
    """The complex dtype of d's precision: complex128 for float64/complex128, else complex64."""
    return complex128 if d in (float64, complex128) else complex64


def real_of(d):
    """The component dtype of a complex dtype; d itself otherwise."""
    return {complex64: float32, complex128: float64}.get(d, d)


def is_integral(d):
    return d.kind in ("signed integer", "unsigned integer")


def result_type(*dtypes):
    """Promotion as the engine does it (the Array API table within a kind)."""
    engine = dtypes[0]._engine
    for d in dtypes[1:]:
        engine = _tensord.promote(engine, d._engine)
    return from_engine(engine)


class finfo_object:
    def __init__(self, dtype, bits, eps, max, min, smallest_normal):
        self.dtype, self.bits, self.eps = dtype, bits, eps
        self.max, self.min, self.smallest_normal = max, min, smallest_normal

    def __repr__(self):
        return (f"finfo(dtype={self.dtype.name}, bits={self.bits}, eps={self.eps}, "
                f"max={self.max}, min={self.min}, smallest_normal={self.smallest_normal})")


class iinfo_object:
    def __init__(self, dtype, bits, max, min):
        self.dtype, self.bits, self.max, self.min = dtype, bits, max, min

    def __repr__(self):
        return f"iinfo(dtype={self.dtype.name}, bits={self.bits}, max={self.max}, min={self.min})"


def finfo(type):
    d = type.dtype if hasattr(type, "_t") else to_dtype(type)
    if d is bfloat16:
        big = float(np.float32(np.uint32(0x7F7F0000).view(np.float32)))
        return finfo_object(d, 16, 2.0 ** -7, big, -big, 2.0 ** -126)
    if is_complex(d):  # Array API: the finfo of the real and imaginary parts' dtype
        d = real_of(d)
    if not is_floating(d):
        raise TypeError(f"finfo needs a floating dtype, got {d.name}")
    f = np.finfo(d.numpy_dtype)
    return finfo_object(d, f.bits, float(f.eps), float(f.max), float(f.min),
                        float(f.smallest_normal))


def iinfo(type):
    d = type.dtype if hasattr(type, "_t") else to_dtype(type)
    if not is_integral(d):
        raise TypeError(f"iinfo needs an integer dtype, got {d.name}")
    i = np.iinfo(d.numpy_dtype)
    return iinfo_object(d, i.bits, int(i.max), int(i.min))
