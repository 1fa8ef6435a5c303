"""bench/ops peers: complex64 functions, arithmetic, reductions and indexing
(ops_table_complex.cpp). numpy_ops(i) and scipy_ops(i, sc) map names to calls over the inputs
i of numpy_peer.make_inputs."""
import numpy as np


def numpy_ops(i):
    z, w = i.z, i.w
    return {
        "complex_mul": lambda: z * w, "complex_div": lambda: z / w,
        "complex_abs": lambda: np.abs(z), "complex_exp": lambda: np.exp(z),
        "complex_log": lambda: np.log(z), "complex_sqrt": lambda: np.sqrt(z),
        "complex_sin": lambda: np.sin(z), "complex_tanh": lambda: np.tanh(z),
        "complex_asinh": lambda: np.arcsinh(z), "complex_expm1": lambda: np.expm1(z),
        "complex_pow": lambda: z ** w, "complex_pow_2": lambda: z ** 2,
        "complex_sum": lambda: z.sum(), "complex_sum_rows": lambda: z.sum(axis=1),
        "complex_var_rows": lambda: z.var(axis=1),
        "complex_cumsum_rows": lambda: np.cumsum(z, axis=1),
        "complex_cumprod_rows": lambda: np.cumprod(z, axis=1),
        "complex_take": lambda: np.take(z, i.flat_index),
        "complex_take_along_dim": lambda: np.take_along_axis(z, i.index, axis=1),
        "complex_tril": lambda: np.tril(z),
        "complex_pad": lambda: np.pad(z, ((2, 2), (3, 3))),
        "complex_masked_fill": lambda: np.where(i.mask, np.complex64(0), z),
    }


def scipy_ops(i, sc):
    return {}
