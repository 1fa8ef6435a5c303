"""Pooling through td.* (torch.nn.functional's names and arguments) against NumPy written here:
3-d window pools by reshaping, return_indices against per-window argmax, max_unpool against a
NumPy scatter, adaptive pools against direct loops. The conformance table checks every dtype,
layout and edge (NaN, ties, dilation, ceil_mode); this checks the Python layer."""
import itertools

import numpy as np
import pytest

import tensord as td


def rnd(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def blocks(x, k):
    """(N, C, D, H, W) into (N, C, D/k, H/k, W/k, k^3) non-overlapping windows."""
    n, c, d, h, w = x.shape
    b = x.reshape(n, c, d // k, k, h // k, k, w // k, k).transpose(0, 1, 2, 4, 6, 3, 5, 7)
    return b.reshape(n, c, d // k, h // k, w // k, k ** 3)


def test_pool3d_against_windows():
    x = rnd(2, 3, 4, 6, 8)
    np.testing.assert_array_equal(np.asarray(td.max_pool3d(td.asarray(x), 2)),
                                  blocks(x, 2).max(axis=-1))
    np.testing.assert_allclose(np.asarray(td.avg_pool3d(td.asarray(x), 2)),
                               blocks(x, 2).mean(axis=-1), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(np.asarray(td.avg_pool3d(td.asarray(x), 2, divisor_override=3)),
                               blocks(x, 2).sum(axis=-1) / 3, rtol=1e-6, atol=1e-6)
    # unbatched (C, D, H, W)
    np.testing.assert_array_equal(np.asarray(td.max_pool3d(td.asarray(x[0]), (2, 2, 2))),
                                  blocks(x, 2).max(axis=-1)[0])


def test_max_pool_indices_and_unpool_round_trip():
    x = rnd(2, 3, 6, 8)  # distinct values: one maximum per window
    values, indices = td.max_pool2d(td.asarray(x), 2, return_indices=True)
    values, indices = np.asarray(values), np.asarray(indices)
    assert indices.dtype == np.int64
    w = x.reshape(2, 3, 3, 2, 4, 2).transpose(0, 1, 2, 4, 3, 5).reshape(2, 3, 3, 4, 4)
    arg = w.argmax(axis=-1)
    rows = np.arange(3)[:, None] * 2 + arg // 2
    cols = np.arange(4)[None, :] * 2 + arg % 2
    np.testing.assert_array_equal(indices, rows * 8 + cols)
    np.testing.assert_array_equal(values, w.max(axis=-1))
    # max_unpool: zeros with each maximum back at its place; default size (in - 1) s + k
    want = np.zeros_like(x).reshape(2, 3, -1)
    np.put_along_axis(want, indices.reshape(2, 3, -1), values.reshape(2, 3, -1), axis=2)
    got = td.max_unpool2d(td.asarray(values), td.asarray(indices), 2)
    np.testing.assert_array_equal(np.asarray(got), want.reshape(x.shape))
    got = td.max_unpool2d(td.asarray(values), td.asarray(indices), 2, output_size=(2, 3, 6, 9))
    assert got.shape == (2, 3, 6, 9)


def test_max_pool1d_and_3d_indices_match_windows():
    x = rnd(2, 2, 9)
    v, i = td.max_pool1d(td.asarray(x), 3, return_indices=True)
    np.testing.assert_array_equal(np.asarray(i), x.reshape(2, 2, 3, 3).argmax(-1)
                                  + np.arange(3) * 3)
    np.testing.assert_array_equal(np.asarray(v), x.reshape(2, 2, 3, 3).max(-1))
    x = rnd(1, 2, 4, 4, 4)
    v, i = td.max_pool3d(td.asarray(x), 2, return_indices=True)
    flat = x.reshape(1, 2, -1)
    np.testing.assert_array_equal(
        np.take_along_axis(flat, np.asarray(i).reshape(1, 2, -1), axis=2).reshape(v.shape),
        np.asarray(v))
    back = td.max_unpool3d(v, i, 2)
    assert back.shape == x.shape


def adaptive_windows(size, out):
    return [(o * size // out, -(-(o + 1) * size // out)) for o in range(out)]


@pytest.mark.parametrize("nd", [1, 2, 3])
def test_adaptive_pools_against_loops(nd):
    shape = (2, 3) + (7, 5, 6)[:nd]
    out = (3, 4, 2)[:nd]
    x = rnd(*shape, seed=nd)
    want_max = np.zeros(shape[:2] + out, np.float32)
    want_avg = np.zeros(shape[:2] + out)
    want_at = np.zeros(shape[:2] + out, np.int64)
    spatial = shape[2:]
    for o in itertools.product(*[range(s) for s in out]):
        win = tuple(slice(a, b) for a, b in
                    (adaptive_windows(spatial[d], out[d])[o[d]] for d in range(nd)))
        patch = x[(slice(None), slice(None)) + win].reshape(2, 3, -1)
        want_max[(...,) + o] = patch.max(-1)
        want_avg[(...,) + o] = patch.mean(-1, dtype=np.float64)
        local = np.unravel_index(patch.argmax(-1), [s.stop - s.start for s in win])
        pos = [local[d] + win[d].start for d in range(nd)]
        want_at[(...,) + o] = np.ravel_multi_index(pos, spatial)
    fn_max = getattr(td, f"adaptive_max_pool{nd}d")
    fn_avg = getattr(td, f"adaptive_avg_pool{nd}d")
    v, i = fn_max(td.asarray(x), out, return_indices=True)
    np.testing.assert_array_equal(np.asarray(v), want_max)
    np.testing.assert_array_equal(np.asarray(i), want_at)
    np.testing.assert_array_equal(np.asarray(fn_max(td.asarray(x), out)), want_max)
    np.testing.assert_allclose(np.asarray(fn_avg(td.asarray(x), out)), want_avg, rtol=1e-6)


def test_pool_errors_name_the_call():
    x = td.asarray(rnd(1, 2, 4, 4, 4))
    with pytest.raises(ValueError, match="max_pool3d"):
        td.max_pool3d(td.asarray(rnd(2, 4, 4)), 2)  # rank 3: no channel axis for 3 spatial
    with pytest.raises(ValueError, match="avg_pool3d's divisor must be nonzero"):
        td.avg_pool3d(x, 2, divisor_override=0)
    with pytest.raises(ValueError, match="output_size needs 1 or 3"):
        td.adaptive_max_pool3d(x, (2, 2))
    v, i = td.max_pool3d(x, 2, return_indices=True)
    with pytest.raises(TypeError, match="max_unpool.*integer indices"):
        td.max_unpool3d(v, v, 2)
    bad = td.asarray(np.full(v.shape, 64, np.int64))  # the output has 64 positions per plane
    with pytest.raises(td.TensorError, match="max_unpool .* index 64 is out of bounds"):
        np.asarray(td.max_unpool3d(v, bad, 2))


def test_lp_pool_is_pytorchs_composite():
    x = np.abs(rnd(2, 3, 4, 6)) + 0.1
    got = td.lp_pool2d(td.asarray(x), 2, 2)
    want = np.sqrt((x.reshape(2, 3, 2, 2, 3, 2) ** 2).sum(axis=(3, 5)))
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5)
    got = td.lp_pool1d(td.asarray(x[0]), 3.0, 3, stride=2)  # (N, C, L) = (3, 4, 6)
    w = np.stack([x[0, :, :, 2 * i:2 * i + 3] for i in range(2)], axis=-2)
    np.testing.assert_allclose(np.asarray(got), (w ** 3).sum(-1) ** (1 / 3), rtol=1e-5)


def test_huge_pool_sizes_are_refused_clearly():
    x = td.asarray(rnd(1, 2, 2, 2, 2))
    _, i = td.max_pool3d(x, 1, return_indices=True)
    with pytest.raises(td.TensorError, match="max_unpool .* more bytes than int64 can count"):
        td.max_unpool3d(x, i, 2, output_size=[2 ** 31] * 3)
    with pytest.raises(td.TensorError, match="adaptive_avg_pool3d .* more bytes than int64"):
        td.adaptive_avg_pool3d(x, (2 ** 31, 2 ** 31, 2 ** 31))
    with pytest.raises(td.TensorError, match="max_unpool .* exceeds the limit"):  # 4 TiB
        np.asarray(td.max_unpool3d(x, i, 2, output_size=[2 ** 13] * 3))
