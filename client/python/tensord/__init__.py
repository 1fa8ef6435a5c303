"""tensord: a lazily evaluated array library whose arrays live in a tensord daemon.

    import numpy as np, tensord as td
    td.connect()                                  # $TENSORD_ADDRESS, else the local socket
    x = td.asarray(np.random.rand(512, 256).astype(np.float32))
    w = td.random.normal(size=(256, 10), seed=0)
    p = td.softmax(x @ w, axis=-1)                # recorded, nothing sent yet
    print(p[:2])                                  # sync point: one round trip

The namespace follows the Python Array API standard where the engine has the ops; functions
it lacks raise NotImplementedError naming the op. The only module state is the current
session (td.connect), like torch's default device.
"""
from . import random
from ._array import Array
from ._creation import (arange, asarray, empty, empty_like, eye, from_dlpack, full, full_like,
                        ones, ones_like, zeros, zeros_like)
from ._dtypes import (DType, bfloat16, bool, finfo, float16, float32, float64, iinfo, int8,
                      int16, int32, int64, uint8)
from ._functions import *  # noqa: F401,F403 (the namespace's functions)
from ._functions import sync
from ._math import *  # noqa: F401,F403 (issue 4's elementwise math)
from ._fusion import Function, explain, function, kernel_cache_stats, set_compile_mode
from ._device import get_float32_matmul_precision, memory_stats, set_float32_matmul_precision
from ._session import connect, info, session
from .profiler import profile
from ._tensord import TensorError
from ._transfer import set_progress
from ._repr import Device

__array_api_version__ = "2023.12"

e = 2.718281828459045
inf = float("inf")
nan = float("nan")
pi = 3.141592653589793
newaxis = None

# Issue 4's ops (nn, shape, special, extra math).
from ._math_extra import *  # noqa: E402,F401,F403 (nextafter, lerp, reductions, scans)
from ._nn import *  # noqa: E402,F401,F403 (activations, losses)
from ._nn_functional import *  # noqa: E402,F401,F403 (conv, pooling, norms, attention, ...)
from ._shape import *  # noqa: E402,F401,F403 (tril, tile, one_hot, split, ...)
from ._index_more import *  # noqa: E402,F401,F403 (searchsorted, nonzero, unique_*, ...)
from ._composites import *  # noqa: E402,F401,F403 (linspace, diff)
from . import special  # noqa: E402 (torch.special's functions)
from ._sort import *  # noqa: E402,F401,F403 (issue 4: sort, argsort, quantile, median)
# Issue 4: complex dtypes and the FFT extension (td.fft).
from ._dtypes import complex64, complex128  # noqa: E402
from ._complex import *  # noqa: E402,F401,F403 (real, imag, conj, angle, complex)
from . import fft  # noqa: E402
from . import linalg  # noqa: E402 (the Array API linalg extension)
from .linalg import einsum  # noqa: E402,F401

# NumPy's names and NumPy functions made of the namespace's ops (np -> td in NumPy code).
from ._numpy_names import *  # noqa: E402,F401,F403
from ._numpy_stats import *  # noqa: E402,F401,F403
from ._numpy_more import *  # noqa: E402,F401,F403
