"""td.linalg against numpy.linalg (the conformance table checks every dtype and edge against
its own float64 reference; this checks the bindings, their arguments and errors)."""
import numpy as np
import pytest

import tensord as td


def check(got, want, rtol=1e-10, atol=1e-10):
    np.testing.assert_allclose(np.asarray(got), want, rtol=rtol, atol=atol, equal_nan=True)


rng = np.random.default_rng(7)


def mat(*shape, dtype=np.float64):
    return rng.standard_normal(shape).astype(dtype)


def spd(n, batch=()):
    m = mat(*batch, n, n)
    return m @ np.swapaxes(m, -1, -2) + n * np.eye(n)


def test_det_inv_solve():
    a = mat(3, 4, 4)
    check(td.linalg.det(td.asarray(a)), np.linalg.det(a))
    check(td.linalg.inv(td.asarray(a)), np.linalg.inv(a), rtol=1e-9)
    b = mat(3, 4, 2)
    check(td.linalg.solve(td.asarray(a), td.asarray(b)), np.linalg.solve(a, b), rtol=1e-9)
    v = mat(4)
    check(td.linalg.solve(td.asarray(a[0]), td.asarray(v)), np.linalg.solve(a[0], v), rtol=1e-9)
    a32 = a.astype(np.float32)
    got = np.asarray(td.linalg.inv(td.asarray(a32)))
    assert got.dtype == np.float32
    check(got, np.linalg.inv(a), rtol=1e-3, atol=1e-4)


def test_singular_and_not_positive_definite_raise():
    singular = np.array([[1.0, 2.0], [2.0, 4.0]])
    with pytest.raises(td.TensorError, match="inv.*singular"):
        np.asarray(td.linalg.inv(td.asarray(singular)))
    with pytest.raises(td.TensorError, match="solve.*singular"):
        np.asarray(td.linalg.solve(td.asarray(singular), td.asarray(np.ones(2))))
    with pytest.raises(td.TensorError, match="cholesky.*positive-definite"):
        np.asarray(td.linalg.cholesky(td.asarray(np.array([[1.0, 2.0], [2.0, 1.0]]))))
    assert float(td.linalg.det(td.asarray(singular))) == 0.0
    # The session goes on after a failed run.
    check(td.linalg.inv(td.asarray(np.eye(2) * 2)), np.eye(2) / 2)


def test_bad_input_errors():
    with pytest.raises(ValueError, match="square"):
        td.linalg.det(td.asarray(mat(3, 4)))
    with pytest.raises(ValueError, match="at least 2 dimensions"):
        td.linalg.inv(td.asarray(mat(3)))
    with pytest.raises(TypeError, match="float32 or float64"):
        td.linalg.cholesky(td.asarray(np.eye(3, dtype=np.int32)))
    with pytest.raises(TypeError, match="float32 or float64"):
        td.linalg.svdvals(td.asarray(np.eye(3, dtype=np.float16)))
    with pytest.raises(ValueError, match="rows"):
        td.linalg.solve(td.asarray(mat(3, 3)), td.asarray(mat(4, 1)))
    with pytest.raises(ValueError, match="size 3"):
        td.linalg.cross(td.asarray(mat(4, 2)), td.asarray(mat(4, 2)))
    with pytest.raises(ValueError, match="ord"):
        td.linalg.matrix_norm(td.asarray(mat(3, 3)), ord=3)
    with pytest.raises(ValueError, match="mode"):
        td.linalg.qr(td.asarray(mat(3, 3)), mode="r")


def test_cholesky_eigvalsh_svdvals():
    a = spd(5, (2,))
    got = np.asarray(td.linalg.cholesky(td.asarray(a)))
    check(got, np.linalg.cholesky(a), rtol=1e-9)
    up = np.asarray(td.linalg.cholesky(td.asarray(a), upper=True))
    check(np.swapaxes(up, -1, -2) @ up, a, rtol=1e-9)
    check(td.linalg.eigvalsh(td.asarray(a)), np.linalg.eigvalsh(a), rtol=1e-9)
    b = mat(2, 4, 6)
    check(td.linalg.eigvalsh(td.asarray(b[:, :, :4]), UPLO="U"),
          np.linalg.eigvalsh(b[:, :, :4], UPLO="U"), rtol=1e-9)
    check(td.linalg.svdvals(td.asarray(b)), np.linalg.svd(b, compute_uv=False), rtol=1e-9)


def test_pinv_rank_lstsq():
    a = mat(5, 3)
    check(td.linalg.pinv(td.asarray(a)), np.linalg.pinv(a), rtol=1e-9)
    low = mat(6, 2) @ mat(2, 5)  # rank 2
    assert int(td.linalg.matrix_rank(td.asarray(low))) == np.linalg.matrix_rank(low) == 2
    check(td.linalg.pinv(td.asarray(low), rtol=1e-10), np.linalg.pinv(low, rcond=1e-10),
          rtol=1e-7, atol=1e-9)
    s = spd(4)
    check(td.linalg.pinv(td.asarray(s), hermitian=True), np.linalg.pinv(s, hermitian=True),
          rtol=1e-9)
    assert int(td.linalg.matrix_rank(td.asarray(np.diag([1.0, 1e-3, 1e-9])), atol=1e-6)) == 2


def check_lstsq(a, b, rcond=None):
    """td.linalg.lstsq's four outputs against np.linalg.lstsq of each matrix of the batch."""
    got = td.linalg.lstsq(td.asarray(a), td.asarray(b), rcond=rcond)
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a_b = np.broadcast_to(a, batch + a.shape[-2:]).reshape((-1,) + a.shape[-2:])
    b_b = np.broadcast_to(b, batch + b.shape[-2:]).reshape((-1,) + b.shape[-2:])
    m, n = a.shape[-2:]
    want = [np.linalg.lstsq(x, y, rcond=rcond) for x, y in zip(a_b, b_b)]
    sol = np.array([w[0] for w in want]).reshape(batch + (n, b.shape[-1]))
    check(got.solution, sol, rtol=1e-8, atol=1e-9)
    check(got.rank, np.array([w[2] for w in want]).reshape(batch))
    assert np.asarray(got.rank).dtype == np.int64
    check(got.singular_values, np.array([w[3] for w in want]).reshape(batch + (min(m, n),)),
          rtol=1e-9)
    full_rank = all(w[2] == n for w in want)
    if m > n and full_rank:
        check(got.residuals, np.array([w[1] for w in want]).reshape(batch + (b.shape[-1],)),
              rtol=1e-8)
    else:
        assert np.asarray(got.residuals).shape == (0,)
    return got


def test_lstsq_outputs():
    got = check_lstsq(mat(5, 3), mat(5, 2))
    solution, residuals, rank, sv = got  # a named tuple, as torch.linalg.lstsq's
    assert solution.shape == (3, 2) and residuals.shape == (2,) and rank.shape == ()
    check_lstsq(mat(3, 6), mat(3, 1))  # wide: no residuals
    check_lstsq(mat(4, 6, 3), mat(6, 2))  # batch of A only
    check_lstsq(mat(6, 3), mat(2, 6, 1))  # batch of B only
    low = mat(6, 2) @ mat(2, 3)  # rank 2 of 3 columns: residuals empty, as torch's
    got = check_lstsq(low, mat(6, 2))
    assert int(got.rank) == 2
    both = np.stack([mat(6, 3), low])  # one rank-deficient matrix empties the whole batch
    check_lstsq(both, mat(2, 6, 2))
    graded = np.diag([1.0, 1e-3, 1e-9])
    assert int(td.linalg.lstsq(td.asarray(graded), td.asarray(mat(3, 1)), rcond=1e-6).rank) == 2
    check_lstsq(graded, mat(3, 1), rcond=1e-6)
    got = td.linalg.lstsq(td.asarray(mat(0, 4, 3)), td.asarray(mat(4, 2)))  # zero-size batch
    assert got.solution.shape == (0, 3, 2) and got.singular_values.shape == (0, 3)
    assert got.residuals.shape == (0, 2)
    b = mat(5, 2)
    got = td.linalg.lstsq(td.asarray(mat(5, 0)), td.asarray(b))  # no unknowns: r = b
    assert got.solution.shape == (0, 2) and int(got.rank) == 0
    check(got.residuals, (b * b).sum(0))
    f32 = td.linalg.lstsq(td.asarray(mat(5, 3, dtype=np.float32)),
                          td.asarray(mat(5, 2, dtype=np.float32)))
    assert np.asarray(f32.residuals).dtype == np.float32
    with pytest.raises(ValueError, match="rows"):
        td.linalg.lstsq(td.asarray(mat(5, 3)), td.asarray(mat(4, 2)))


def test_composites():
    x = mat(3, 4, 4)
    check(td.linalg.trace(td.asarray(x)), np.trace(x, axis1=-2, axis2=-1))
    check(td.linalg.trace(td.asarray(x), offset=1), np.trace(x, 1, axis1=-2, axis2=-1))
    u, v = mat(4), mat(3)
    check(td.linalg.outer(td.asarray(u), td.asarray(v)), np.outer(u, v))
    i, j = np.arange(6).reshape(2, 3), np.arange(4).reshape(2, 2) + 1
    check(td.linalg.kron(td.asarray(i), td.asarray(j)), np.kron(i, j))
    a, b = mat(5, 3), mat(3)
    check(td.linalg.cross(td.asarray(a), td.asarray(b)), np.cross(a, b))
    m = mat(4, 4)
    for p in [0, 1, 3, -1, -2]:
        check(td.linalg.matrix_power(td.asarray(m), p), np.linalg.matrix_power(m, p), rtol=1e-8)
    check(td.linalg.matrix_power(td.asarray(i[:, :2]), 3), np.linalg.matrix_power(i[:, :2], 3))


@pytest.mark.parametrize("ord", ["fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf])
def test_matrix_norm(ord):
    x = mat(2, 3, 5)
    check(td.linalg.matrix_norm(td.asarray(x), ord=ord), np.linalg.norm(x, ord=ord, axis=(-2, -1)),
          rtol=1e-9)
    got = td.linalg.matrix_norm(td.asarray(x), ord=ord, keepdims=True)
    assert got.shape == (2, 1, 1)


def test_vector_norm_and_aliases():
    x = mat(3, 4)
    check(td.linalg.vector_norm(td.asarray(x), axis=1), np.linalg.norm(x, axis=1))
    check(td.linalg.vector_norm(td.asarray(x), ord=np.inf), np.abs(x).max())
    y = mat(2, 3, 3)
    check(td.linalg.diagonal(td.asarray(y), offset=1), np.diagonal(y, 1, axis1=-2, axis2=-1))
    check(td.linalg.matrix_transpose(td.asarray(x)), x.T)
    check(td.linalg.vecdot(td.asarray(x), td.asarray(x)), (x * x).sum(-1))
    check(td.linalg.matmul(td.asarray(x), td.asarray(x.T)), x @ x.T)
    check(td.linalg.tensordot(td.asarray(x), td.asarray(x.T), axes=1), x @ x.T)


def test_distances():
    a, b = mat(2, 4, 3), mat(2, 5, 3)
    diff = a[:, :, None, :] - b[:, None, :, :]
    for p in [0.0, 1.0, 2.0, 3.0, np.inf]:
        if p == 0:
            want = (diff != 0).sum(-1).astype(np.float64)
        elif np.isinf(p):
            want = np.abs(diff).max(-1)
        else:
            want = (np.abs(diff) ** p).sum(-1) ** (1 / p)
        check(td.linalg.cdist(td.asarray(a), td.asarray(b), p=p), want)
    x = mat(6, 3)
    iu = np.triu_indices(6, 1)
    d = np.sqrt(((x[:, None, :] - x[None, :, :]) ** 2).sum(-1))[iu]
    check(td.linalg.pdist(td.asarray(x)), d)


def test_multi_dot_chain_matmul_tensordot():
    ms = [mat(10, 30), mat(30, 5), mat(5, 60), mat(60, 2)]
    check(td.linalg.multi_dot([td.asarray(m) for m in ms]), np.linalg.multi_dot(ms), rtol=1e-9)
    v, w = mat(10), mat(2)
    check(td.linalg.multi_dot([td.asarray(v)] + [td.asarray(m) for m in ms] + [td.asarray(w)]),
          np.linalg.multi_dot([v] + ms + [w]), rtol=1e-9)
    check(td.linalg.chain_matmul(*[td.asarray(m) for m in ms[:3]]),
          ms[0] @ ms[1] @ ms[2], rtol=1e-9)
    with pytest.raises(ValueError, match="chain"):
        td.linalg.multi_dot([td.asarray(mat(3, 4)), td.asarray(mat(5, 2))])


@pytest.mark.parametrize("eq,shapes", [
    ("ij,jk->ik", [(3, 4), (4, 5)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("ii->i", [(4, 4)]),
    ("ii", [(4, 4)]),
    ("ij->", [(3, 4)]),
    ("ij->ji", [(3, 4)]),
    ("i,j->ij", [(3,), (4,)]),
    ("i,i->", [(5,), (5,)]),
    ("ij,j->i", [(3, 4), (4,)]),
    ("...ij,...jk->...ik", [(2, 1, 3, 4), (5, 4, 2)]),
    ("bhqd,bhkd->bhqk", [(2, 3, 4, 5), (2, 3, 6, 5)]),
    ("ijk,jil->kl", [(2, 3, 4), (3, 2, 5)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),
    ("iij->j", [(3, 3, 2)]),
    ("ab,cd", [(2, 3), (4, 5)]),
    ("ba,ac", [(2, 3), (3, 4)]),
    # size-1 dims broadcast against a contracted label, a kept one, and across ellipses
    ("ij,jk->ik", [(2, 1), (4, 5)]),
    ("ij,jk", [(2, 4), (1, 5)]),
    ("ij,ij->i", [(3, 1), (3, 4)]),
    ("ij,ij->ij", [(1, 4), (3, 1)]),
    ("ij,kj->ik", [(2, 1), (3, 5)]),
    ("i,i", [(1,), (6,)]),
    ("...i,...i->...", [(3, 1, 4), (5, 4)]),
    ("...i,...i", [(2, 1, 4), (1, 3, 4)]),
    ("...ij,...jk", [(1, 3, 1), (2, 4, 5)]),
    ("ij...,jk...->ik...", [(2, 3, 1), (3, 4, 5)]),
    ("i...j,j->...i", [(2, 1, 3), (1,)]),
])
def test_einsum(eq, shapes):
    ops = [mat(*s) for s in shapes]
    check(td.einsum(eq, *[td.asarray(o) for o in ops]), np.einsum(eq, *ops), rtol=1e-9)


def test_einsum_broadcast_errors():
    with pytest.raises(ValueError, match="label 'j' has sizes 3 and 4"):
        td.einsum("ij,jk->ik", td.asarray(mat(2, 3)), td.asarray(mat(4, 5)))
    with pytest.raises(ValueError, match="ellipsis dim"):
        td.einsum("...i,...i", td.asarray(mat(2, 4)), td.asarray(mat(3, 4)))
    with pytest.raises(ValueError, match="repeated in one operand"):  # as numpy, no diagonal
        td.einsum("ii->i", td.asarray(mat(1, 3)))                    # broadcasting


def test_einsum_errors():
    with pytest.raises(ValueError, match="einsum"):
        td.einsum("ij,jk->ik", td.asarray(mat(3, 4)))
    with pytest.raises(ValueError, match="einsum"):
        td.einsum("ij->ik", td.asarray(mat(3, 4)))
    with pytest.raises(ValueError, match="einsum"):
        td.einsum("ijk->i", td.asarray(mat(3, 4)))


def test_multi_output_factorizations():
    a = mat(2, 5, 3)
    q, r = td.linalg.qr(td.asarray(a))
    q, r = np.asarray(q), np.asarray(r)
    assert q.shape == (2, 5, 3) and r.shape == (2, 3, 3)
    check(q @ r, a, rtol=1e-12, atol=1e-12)
    check(np.swapaxes(q, -1, -2) @ q, np.broadcast_to(np.eye(3), (2, 3, 3)), atol=1e-12)
    assert np.all(np.tril(r, -1) == 0)
    qc, rc = td.linalg.qr(td.asarray(a), mode="complete")
    assert qc.shape == (2, 5, 5) and rc.shape == (2, 5, 3)
    check(np.asarray(qc) @ np.asarray(rc), a, atol=1e-12)

    u, s, vh = td.linalg.svd(td.asarray(a), full_matrices=False)
    u, s, vh = np.asarray(u), np.asarray(s), np.asarray(vh)
    check(s, np.linalg.svd(a, compute_uv=False), rtol=1e-12)
    check((u * s[..., None, :]) @ vh, a, atol=1e-12)
    res = td.linalg.svd(td.asarray(a))
    assert res.U.shape == (2, 5, 5) and res.Vh.shape == (2, 3, 3)

    sym = spd(4, (3,))
    w, v = td.linalg.eigh(td.asarray(sym))
    w, v = np.asarray(w), np.asarray(v)
    check(w, np.linalg.eigvalsh(sym), rtol=1e-12)
    check(sym @ v, v * w[..., None, :], atol=1e-10)

    x = mat(3, 4, 4)
    sign, logabs = td.linalg.slogdet(td.asarray(x))
    want = np.linalg.slogdet(x)
    check(sign, want[0])
    check(logabs, want[1], rtol=1e-12)
    sign, logabs = td.linalg.slogdet(td.asarray(np.array([[1.0, 2.0], [2.0, 4.0]])))
    assert float(sign) == 0 and float(logabs) == -np.inf
