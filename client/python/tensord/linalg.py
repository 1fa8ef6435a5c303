"""td.linalg: the Array API linear algebra extension (plus torch.linalg's lstsq, kron, cdist,
pdist, multi_dot, chain_matmul and einsum), docs/ops.md "Linear algebra". The factorizations
run LAPACK in the daemon on float32 and float64 (other dtypes raise TypeError); matrices are
the last two axes and leading axes are a batch. A singular matrix for inv/solve, or one that is
not positive-definite for cholesky, raises td.TensorError naming the op when the graph runs.
Functions the engine lacks raise NotImplementedError naming the op."""
import builtins
import math
from math import inf as _inf
from math import prod as _prod
from typing import NamedTuple

from numpy.linalg import LinAlgError as _LinAlgError

from . import _functions, _tensord
from ._array import Array, _operand_array
from ._location import caller
from ._math_extra import norm as _norm

__all__ = ["cholesky", "cross", "det", "diagonal", "eigh", "eigvalsh", "inv", "matmul",
           "matrix_norm", "matrix_power", "matrix_rank", "matrix_transpose", "outer", "pinv",
           "qr", "slogdet", "solve", "svd", "svdvals", "tensordot", "trace", "vecdot",
           "vector_norm", "lstsq", "kron", "cdist", "pdist", "multi_dot", "chain_matmul",
           "einsum", "cond", "tensorinv", "tensorsolve"]


def _t(x):
    return _operand_array(x)._t


def cholesky(x, /, *, upper=False):
    return Array(_tensord.linalg_cholesky(_t(x), builtins.bool(upper), caller()))


def cross(x1, x2, /, *, axis=-1):
    return Array(_tensord.linalg_cross(_t(x1), _t(x2), int(axis), caller()))


def det(x, /):
    return Array(_tensord.linalg_det(_t(x), caller()))


def diagonal(x, /, *, offset=0):
    return Array(_tensord.diagonal(_t(x), int(offset), -2, -1, caller()))


def eigvalsh(x, /, *, UPLO="L"):
    return Array(_tensord.linalg_eigvalsh(_t(x), _upper(UPLO), caller()))


def inv(x, /):
    return Array(_tensord.linalg_inv(_t(x), caller()))


def matmul(x1, x2, /):
    return _functions.matmul(x1, x2)


def matrix_norm(x, /, *, keepdims=False, ord="fro", axis=(-2, -1)):
    if not isinstance(ord, str):
        ord = float(ord)
    return Array(_tensord.linalg_matrix_norm(_t(x), ord, [int(a) for a in axis],
                                             builtins.bool(keepdims), caller()))


def matrix_power(x, n, /):
    return Array(_tensord.linalg_matrix_power(_t(x), int(n), caller()))


def _tol(v):
    return None if v is None else float(v)


def matrix_rank(x, /, *, rtol=None, atol=None, hermitian=False):
    return Array(_tensord.linalg_matrix_rank(_t(x), _tol(rtol), _tol(atol),
                                             builtins.bool(hermitian), caller()))


def matrix_transpose(x, /):
    return _functions.matrix_transpose(x)


def outer(x1, x2, /):
    return Array(_tensord.linalg_outer(_t(x1), _t(x2), caller()))


def pinv(x, /, *, rtol=None, atol=None, hermitian=False):
    return Array(_tensord.linalg_pinv(_t(x), _tol(rtol), _tol(atol), builtins.bool(hermitian),
                                      caller()))


def solve(x1, x2, /):
    return Array(_tensord.linalg_solve(_t(x1), _t(x2), caller()))


def svdvals(x, /):
    return Array(_tensord.linalg_svdvals(_t(x), caller()))


def tensordot(x1, x2, /, *, axes=2):
    return _functions.tensordot(x1, x2, axes=axes)


def trace(x, /, *, offset=0, dtype=None):
    r = Array(_tensord.linalg_trace(_t(x), int(offset), caller()))
    return r if dtype is None else _functions.astype(r, dtype)


def vecdot(x1, x2, /, *, axis=-1):
    return _functions.vecdot(x1, x2, axis=axis)


def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
    return _norm(x, ord, axis=axis, keepdims=keepdims)


def kron(a, b, /):
    return Array(_tensord.linalg_kron(_t(a), _t(b), caller()))


def cdist(x1, x2, /, p=2.0):
    return Array(_tensord.linalg_cdist(_t(x1), _t(x2), float(p), caller()))


def pdist(x, /, p=2.0):
    return Array(_tensord.linalg_pdist(_t(x), float(p), caller()))


def multi_dot(arrays, /):
    return Array(_tensord.linalg_multi_dot([_t(a) for a in arrays], caller()))


def chain_matmul(*matrices):
    return Array(_tensord.linalg_chain_matmul([_t(a) for a in matrices], caller()))


def einsum(equation, /, *operands):
    return Array(_tensord.linalg_einsum(str(equation), [_t(a) for a in operands], caller()))


def _upper(uplo):
    if uplo not in ("L", "U"):
        raise ValueError(f"UPLO must be 'L' or 'U', got {uplo!r}")
    return uplo == "U"


class SlogdetResult(NamedTuple):
    sign: Array
    logabsdet: Array


class QRResult(NamedTuple):
    Q: Array
    R: Array


class SVDResult(NamedTuple):
    U: Array
    S: Array
    Vh: Array


class EighResult(NamedTuple):
    eigenvalues: Array
    eigenvectors: Array


class LstsqResult(NamedTuple):
    solution: Array
    residuals: Array
    rank: Array
    singular_values: Array


def lstsq(a, b, /, *, rcond=None):
    """torch.linalg.lstsq with driver gelsd: a (..., m, n), b (..., m, k) -> (solution
    (..., n, k), residuals (..., k) when m > n and every matrix has rank n else empty (0,),
    rank (...) int64, singular_values (..., min(m, n))). One node computes all four; deciding
    whether residuals are empty syncs the ranks when m > n, as torch does."""
    return LstsqResult(*(Array(t) for t in _tensord.linalg_lstsq(_t(a), _t(b), _tol(rcond),
                                                                 caller())))


def slogdet(x, /):
    """(sign, logabsdet) of det(x); a singular matrix gives (0, -inf). One node computes both."""
    return SlogdetResult(*(Array(t) for t in _tensord.linalg_slogdet(_t(x), caller())))


def qr(x, /, *, mode="reduced"):
    """Householder QR: (Q, R) with Q R = x; the signs of Q's columns are LAPACK's."""
    if mode not in ("reduced", "complete"):
        raise ValueError(f"qr mode must be 'reduced' or 'complete', got {mode!r}")
    return QRResult(*(Array(t) for t in _tensord.linalg_qr(_t(x), mode, caller())))


def svd(x, /, *, full_matrices=True):
    """(U, S, Vh) with U diag(S) Vh = x, S descending (LAPACK gesdd)."""
    return SVDResult(*(Array(t) for t in _tensord.linalg_svd(_t(x), builtins.bool(full_matrices),
                                                             caller())))


def eigh(x, /, *, UPLO="L"):
    """(eigenvalues ascending, eigenvectors as columns) of the symmetric matrix read from the
    lower (UPLO="L") or upper triangle (LAPACK syevd)."""
    return EighResult(*(Array(t) for t in _tensord.linalg_eigh(_t(x), _upper(UPLO), caller())))


# --- NumPy's np.linalg names that are a few of the above -------------------------------------
def cond(x, p=None):
    """NumPy's condition number: the ratio of the extreme singular values for p None, 2 or -2
    (inf for a singular matrix), else matrix_norm(x, p) * matrix_norm(inv(x), p), where a
    singular matrix raises td.TensorError (NumPy gives inf)."""
    x = _operand_array(x)
    if p is None or p in (2, -2):
        s = svdvals(x)
        big, small = s[..., 0], s[..., -1]
        r = small / big if p == -2 else big / small
        # 0 / 0 of a zero matrix is inf, as NumPy's, unless x has a NaN of its own.
        nan_free = _functions.logical_not(_functions.any(_functions.isnan(x), axis=(-2, -1)))
        return _functions.where(_functions.isnan(r) & nan_free, _inf, r)
    return matrix_norm(x, ord=p) * matrix_norm(inv(x), ord=p)


def tensorinv(a, ind=2):
    """The inverse of `a` read as a matrix of its first `ind` axes by the rest (NumPy's)."""
    a = _operand_array(a)
    if ind <= 0:
        raise ValueError("Invalid ind argument.")
    rows = _prod(a.shape[ind:])
    inverse = inv(_functions.reshape(a, (rows, -1)))
    return _functions.reshape(inverse, tuple(a.shape[ind:]) + tuple(a.shape[:ind]))


def tensorsolve(a, b, axes=None):
    """x with tensordot(a, x, x.ndim) == b (NumPy's); `axes` of a are moved to the end first."""
    a, b = _operand_array(a), _operand_array(b)
    if axes is not None:
        order = [k for k in range(a.ndim) if k not in [ax % a.ndim for ax in axes]]
        a = _functions.permute_dims(a, tuple(order + [ax % a.ndim for ax in axes]))
    shape = tuple(a.shape[b.ndim:])
    n = _prod(shape)
    if _prod(a.shape) != n * n:
        raise _LinAlgError("Input arrays must satisfy the requirement "
                           "prod(a.shape[b.ndim:]) == prod(a.shape[:b.ndim])")
    x = solve(_functions.reshape(a, (n, n)), _functions.reshape(b, (n, 1)))
    return _functions.reshape(x, shape)


del math
