"""Issue 4's neural-network ops through td.* (torch.nn.functional's names and arguments) against
NumPy implementations written here: direct loops for convolution and pooling, formulas for the
rest. The conformance table checks every dtype and edge; this checks the Python layer."""
import math

import numpy as np
import pytest

import tensord as td


def check(got, want, rtol=1e-4, atol=1e-5):
    np.testing.assert_allclose(np.asarray(got), want, rtol=rtol, atol=atol, equal_nan=True)


def rnd(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


# --- NumPy references ------------------------------------------------------------------------

def np_conv2d(x, w, b=None, stride=(1, 1), padding=(0, 0), dilation=(1, 1), groups=1):
    x, w = x.astype(np.float64), w.astype(np.float64)
    n, c, h, wd = x.shape
    co, cg, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (padding[0],) * 2, (padding[1],) * 2))
    oh = (h + 2 * padding[0] - dilation[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (wd + 2 * padding[1] - dilation[1] * (kw - 1) - 1) // stride[1] + 1
    out = np.zeros((n, co, oh, ow))
    per = co // groups
    for o in range(co):
        g = o // per
        for i in range(oh):
            for j in range(ow):
                for a in range(kh):
                    for bb in range(kw):
                        patch = xp[:, g * cg:(g + 1) * cg, i * stride[0] + a * dilation[0],
                                   j * stride[1] + bb * dilation[1]]
                        out[:, o, i, j] += patch @ w[o, :, a, bb]
    if b is not None:
        out += b.reshape(1, -1, 1, 1)
    return out


def np_conv_transpose2d(x, w, b=None, stride=(1, 1), padding=(0, 0), output_padding=(0, 0)):
    x, w = x.astype(np.float64), w.astype(np.float64)
    n, ci, h, wd = x.shape
    _, co, kh, kw = w.shape
    oh = (h - 1) * stride[0] - 2 * padding[0] + kh + output_padding[0]
    ow = (wd - 1) * stride[1] - 2 * padding[1] + kw + output_padding[1]
    full = np.zeros((n, co, oh + 2 * padding[0] + kh, ow + 2 * padding[1] + kw))
    for i in range(h):
        for j in range(wd):
            full[:, :, i * stride[0]:i * stride[0] + kh, j * stride[1]:j * stride[1] + kw] += \
                np.einsum("nc,cokl->nokl", x[:, :, i, j], w)
    out = full[:, :, padding[0]:padding[0] + oh, padding[1]:padding[1] + ow]
    if b is not None:
        out = out + b.reshape(1, -1, 1, 1)
    return out


def np_pool2d(x, k, s, p, op, ceil_mode=False, count_include_pad=True):
    x = x.astype(np.float64)
    n, c, h, w = x.shape

    def size(length, kk, ss, pp):
        out = (length + 2 * pp - kk + (ss - 1 if ceil_mode else 0)) // ss + 1
        if ceil_mode and (out - 1) * ss >= length + pp:
            out -= 1
        return out
    oh, ow = size(h, k[0], s[0], p[0]), size(w, k[1], s[1], p[1])
    out = np.zeros((n, c, oh, ow))
    for i in range(oh):
        for j in range(ow):
            y0, x0 = i * s[0] - p[0], j * s[1] - p[1]
            ys, xs = max(y0, 0), max(x0, 0)
            ye, xe = min(y0 + k[0], h), min(x0 + k[1], w)
            win = x[:, :, ys:ye, xs:xe]
            if op == "max":
                out[:, :, i, j] = win.max(axis=(2, 3))
            else:
                div = ((min(y0 + k[0], h + p[0]) - y0) * (min(x0 + k[1], w + p[1]) - x0)
                       if count_include_pad else (ye - ys) * (xe - xs))
                out[:, :, i, j] = win.sum(axis=(2, 3)) / div
    return out


def np_softmax(s, axis=-1):
    m = s.max(axis=axis, keepdims=True)
    e = np.exp(s - m)
    return e / e.sum(axis=axis, keepdims=True)


# --- tests ---------------------------------------------------------------------------------

@pytest.mark.parametrize("kw", [{}, {"stride": 2, "padding": 1}, {"dilation": 2, "padding": 2},
                                {"groups": 2}, {"stride": (2, 1), "padding": (0, 1)}])
def test_conv2d(kw):
    x, w, b = rnd(2, 4, 7, 6, seed=1), rnd(6, 4 // kw.get("groups", 1), 3, 3, seed=2), rnd(6)
    pair = {k: (v, v) if isinstance(v, int) and k != "groups" else v for k, v in kw.items()}
    got = td.conv2d(td.asarray(x), td.asarray(w), td.asarray(b), **kw)
    check(got, np_conv2d(x, w, b, **pair))


def test_conv2d_channels_last_view():
    # An NHWC array permuted to NCHW: the engine hands the strides to oneDNN as they are.
    x_nhwc, w = rnd(2, 9, 8, 5, seed=3), rnd(4, 5, 3, 3, seed=4)
    x = td.permute_dims(td.asarray(x_nhwc), (0, 3, 1, 2))
    check(td.conv2d(x, td.asarray(w), padding="same"),
          np_conv2d(x_nhwc.transpose(0, 3, 1, 2), w, padding=(1, 1)))


def test_conv1d_and_conv3d():
    x, w = rnd(2, 3, 10), rnd(4, 3, 3, seed=5)
    want = np_conv2d(x[:, :, None, :], w[:, :, None, :], stride=(1, 2))[:, :, 0, :]
    check(td.conv1d(td.asarray(x), td.asarray(w), stride=2), want)
    x3, w3 = rnd(1, 2, 3, 4, 5, seed=6), rnd(3, 2, 1, 2, 2, seed=7)
    want3 = np.stack([np_conv2d(x3[:, :, d], w3[:, :, 0]) for d in range(3)], axis=2)
    check(td.conv3d(td.asarray(x3), td.asarray(w3)), want3)


@pytest.mark.parametrize("stride,padding,output_padding", [(1, 0, 0), (2, 1, 1), (3, 0, 2)])
def test_conv_transpose2d(stride, padding, output_padding):
    x, w, b = rnd(2, 3, 4, 5, seed=8), rnd(3, 2, 3, 3, seed=9), rnd(2, seed=10)
    got = td.conv_transpose2d(td.asarray(x), td.asarray(w), td.asarray(b), stride=stride,
                              padding=padding, output_padding=output_padding)
    check(got, np_conv_transpose2d(x, w, b, (stride,) * 2, (padding,) * 2, (output_padding,) * 2))


def np_conv_transpose(x, w, b, stride, padding, output_padding, dilation, groups):
    """Any number of spatial axes, scatter form: each input element adds its weighted kernel."""
    x, w = x.astype(np.float64), w.astype(np.float64)
    nd, ci_g, co_g = x.ndim - 2, x.shape[1] // groups, w.shape[1]
    k = w.shape[2:]
    full = [(x.shape[2 + d] - 1) * stride[d] + (k[d] - 1) * dilation[d] + 1 + output_padding[d]
            for d in range(nd)]
    y = np.zeros((x.shape[0], co_g * groups, *full))
    for g in range(groups):
        xg, wg = x[:, g * ci_g:(g + 1) * ci_g], w[g * ci_g:(g + 1) * ci_g]
        for i in np.ndindex(*x.shape[2:]):
            for kk in np.ndindex(*k):
                pos = tuple(i[d] * stride[d] + kk[d] * dilation[d] for d in range(nd))
                y[(slice(None), slice(g * co_g, (g + 1) * co_g), *pos)] += \
                    xg[(slice(None), slice(None), *i)] @ wg[(slice(None), slice(None), *kk)]
    y = y[(slice(None), slice(None),
           *(slice(padding[d], full[d] - padding[d]) for d in range(nd)))]
    return y if b is None else y + b.reshape(1, -1, *([1] * nd))


@pytest.mark.parametrize("nd", [1, 3])
def test_conv_transpose1d_3d(nd):
    x = rnd(2, 4, *([5, 3, 4][:nd] if nd == 3 else [6]), seed=40)
    w = rnd(4, 3, *([2, 3, 2][:nd] if nd == 3 else [3]), seed=41)
    b = rnd(6, seed=42)
    fn = td.conv_transpose1d if nd == 1 else td.conv_transpose3d
    stride, padding, opad, dil = [2] * nd, [1] * nd, [1] + [0] * (nd - 1), [1] * (nd - 1) + [2]
    got = fn(td.asarray(x), td.asarray(w), td.asarray(b), stride=stride, padding=padding,
             output_padding=opad, groups=2, dilation=dil)
    want = np_conv_transpose(x, w, b, stride, padding, opad, dil, 2)
    assert got.shape == want.shape
    check(got, want)
    with pytest.raises(ValueError, match=f"conv_transpose{nd}d"):
        fn(td.asarray(x), td.asarray(rnd(3, 3, *w.shape[2:])))


def test_conv_unbatched_and_same_with_an_even_kernel():
    x, w, b = rnd(1, 3, 7, 6, seed=50), rnd(4, 3, 4, 3, seed=51), rnd(4, seed=52)
    check(td.conv2d(td.asarray(x[0]), td.asarray(w), td.asarray(b), padding=1),
          np_conv2d(x, w, b, padding=(1, 1))[0])
    # 'same' with dilation * (k - 1) odd: PyTorch puts the odd unit on the right
    got = td.conv2d(td.asarray(x), td.asarray(w), padding="same")
    assert got.shape == x.shape[:1] + (4,) + x.shape[2:]
    check(got, np_conv2d(np.pad(x, ((0, 0), (0, 0), (1, 2), (1, 1))), w))
    w1 = rnd(2, 3, 2, seed=53)
    got = td.conv1d(td.asarray(x[0, :, 0]), td.asarray(w1), padding="same", dilation=3)
    want = np_conv2d(np.pad(x[:, :, :1], ((0, 0), (0, 0), (0, 0), (1, 2))), w1[:, :, None, :],
                     dilation=(1, 3))[0, :, 0]
    check(got, want)
    xt, wt = rnd(4, 5, seed=54), rnd(4, 2, 3, seed=55)
    check(td.conv_transpose1d(td.asarray(xt), td.asarray(wt)),
          np_conv_transpose(xt[None], wt, None, [1], [0], [0], [1], 1)[0])


def test_conv_errors_name_the_op():
    x, w = td.asarray(rnd(1, 4, 5, 5)), td.asarray(rnd(2, 3, 3, 3))
    with pytest.raises(ValueError, match="conv2d.*channels"):
        td.conv2d(x, w)
    with pytest.raises(ValueError, match="conv2d.*rank 4"):
        td.conv2d(td.asarray(rnd(5, 5)), w)
    with pytest.raises(ValueError, match="conv2d.*channels"):
        td.conv2d(td.asarray(rnd(4, 5, 5)), w)  # unbatched (C, H, W) with 4 channels
    with pytest.raises(ValueError, match="conv2d: groups 3 must divide"):
        td.conv2d(td.asarray(rnd(1, 4, 5, 5)), td.asarray(rnd(3, 2, 3, 3)), groups=3)
    with pytest.raises(TypeError, match="conv1d"):
        td.conv1d(td.asarray(np.ones((1, 2, 4), np.int32)), td.asarray(np.ones((1, 2, 2), np.int32)))
    with pytest.raises(ValueError, match="max_pool2d.*half the kernel"):
        td.max_pool2d(td.asarray(rnd(1, 1, 4, 4)), 2, padding=2)


@pytest.mark.parametrize("kw", [{}, {"stride": 1}, {"padding": 1, "stride": 2},
                                {"ceil_mode": True, "stride": 2}])
def test_pool2d(kw):
    x = rnd(2, 3, 7, 8, seed=11)
    k, s, p = 3, kw.get("stride", 3), kw.get("padding", 0)
    cm = kw.get("ceil_mode", False)
    check(td.max_pool2d(td.asarray(x), 3, **kw), np_pool2d(x, (k, k), (s, s), (p, p), "max", cm))
    check(td.avg_pool2d(td.asarray(x), 3, **kw), np_pool2d(x, (k, k), (s, s), (p, p), "avg", cm))
    check(td.avg_pool2d(td.asarray(x), 3, count_include_pad=False, **kw),
          np_pool2d(x, (k, k), (s, s), (p, p), "avg", cm, count_include_pad=False))


def test_pool1d_and_nan():
    x = rnd(2, 3, 9, seed=12)
    x[0, 0, 4] = np.nan
    want = np_pool2d(x[:, :, None, :], (1, 2), (1, 2), (0, 0), "max")[:, :, 0, :]
    got = np.asarray(td.max_pool1d(td.asarray(x), 2))
    check(got, want)
    assert np.isnan(got[0, 0, 2])
    check(td.avg_pool1d(td.asarray(x[1:]), 3, 2, 1),
          np_pool2d(x[1:, :, None, :], (1, 3), (1, 2), (0, 1), "avg")[:, :, 0, :])


def test_adaptive_avg_pool2d():
    x = rnd(2, 3, 7, 9, seed=13).astype(np.float64)
    want = np.zeros((2, 3, 3, 4))
    for i in range(3):
        for j in range(4):
            y0, y1 = (i * 7) // 3, -((-(i + 1) * 7) // 3)
            x0, x1 = (j * 9) // 4, -((-(j + 1) * 9) // 4)
            want[:, :, i, j] = x[:, :, y0:y1, x0:x1].mean(axis=(2, 3))
    check(td.adaptive_avg_pool2d(td.asarray(x), (3, 4)), want)
    check(td.adaptive_avg_pool2d(td.asarray(x), 1), x.mean(axis=(2, 3), keepdims=True))


def test_interpolate():
    x = rnd(1, 2, 3, 4, seed=14)
    check(td.interpolate(td.asarray(x), scale_factor=2), x.repeat(2, axis=2).repeat(2, axis=3))
    # bilinear with align_corners: corners map onto corners.
    got = np.asarray(td.interpolate(td.asarray(x), size=(5, 7), mode="bilinear",
                                    align_corners=True))
    check(got[:, :, [0, -1]][:, :, :, [0, -1]], x[:, :, [0, -1]][:, :, :, [0, -1]])
    # bilinear without align_corners, against a separable NumPy implementation.
    def taps(n_in, n_out):
        src = np.maximum((np.arange(n_out) + 0.5) * n_in / n_out - 0.5, 0)
        i0 = np.minimum(np.floor(src).astype(int), n_in - 1)
        i1 = np.minimum(i0 + 1, n_in - 1)
        l1 = src - i0
        m = np.zeros((n_out, n_in))
        m[np.arange(n_out), i0] += 1 - l1
        m[np.arange(n_out), i1] += l1
        return m
    want = np.einsum("oh,nchw,pw->ncop", taps(3, 6), x.astype(np.float64), taps(4, 5))
    check(td.interpolate(td.asarray(x), size=(6, 5), mode="bilinear"), want)
    with pytest.raises(ValueError):
        td.interpolate(td.asarray(x), size=4, mode="linear")


def _axis_matrix(mode, n_in, n_out, scale=None, align_corners=False):
    """(n_out, n_in) weights of one axis, written from PyTorch's formulas in float64."""
    m = np.zeros((n_out, n_in))
    o = np.arange(n_out, dtype=np.float64)
    if align_corners:
        s = (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
    else:
        s = 1.0 / scale if scale else n_in / n_out
    if mode in ("nearest", "nearest-exact"):
        fs = np.float32(1.0 / scale) if scale else np.float32(n_in) / np.float32(n_out)
        if mode == "nearest":
            idx = np.floor(o.astype(np.float32) * fs).astype(int)
            if n_out == n_in or n_out == 2 * n_in:
                idx = np.arange(n_out) * n_in // n_out
        else:
            idx = np.floor(((o + 0.5) * np.float64(fs)).astype(np.float32)).astype(int)
        m[np.arange(n_out), np.minimum(idx, n_in - 1)] = 1
    elif mode == "linear":
        src = s * o if align_corners else np.maximum(s * (o + 0.5) - 0.5, 0)
        i0 = np.minimum(np.floor(src).astype(int), n_in - 1)
        l1 = np.minimum(src - i0, 1)
        m[np.arange(n_out), i0] += 1 - l1
        m[np.arange(n_out), np.minimum(i0 + 1, n_in - 1)] += l1
    elif mode == "bicubic":
        src = s * o if align_corners else s * (o + 0.5) - 0.5
        f = np.floor(src)
        for k in (-1, 0, 1, 2):
            d = np.abs(src - (f + k))
            a = -0.75
            w = np.where(d <= 1, (a + 2) * d**3 - (a + 3) * d**2 + 1,
                         a * d**3 - 5 * a * d**2 + 8 * a * d - 4 * a)
            np.add.at(m, (np.arange(n_out), np.clip(f.astype(int) + k, 0, n_in - 1)), w)
    else:
        assert mode == "area", mode
        for i in range(n_out):
            lo, hi = (i * n_in) // n_out, -((-(i + 1) * n_in) // n_out)
            m[i, lo:hi] = 1 / (hi - lo)
    return m


def _separable(x, mats):
    y = x.astype(np.float64)
    for axis, m in enumerate(mats):
        y = np.moveaxis(np.tensordot(m, np.moveaxis(y, axis + 2, 0), axes=1), 0, axis + 2)
    return y


def test_interpolate_modes():
    x3, x4, x5 = rnd(2, 3, 7, seed=31), rnd(1, 2, 5, 6, seed=32), rnd(1, 2, 3, 4, 5, seed=33)
    # trilinear, with and without align_corners
    for corners in (False, True):
        want = _separable(x5, [_axis_matrix("linear", i, o, align_corners=corners)
                               for i, o in zip((3, 4, 5), (5, 7, 2))])
        check(td.interpolate(td.asarray(x5), size=(5, 7, 2), mode="trilinear",
                             align_corners=corners), want)
    # bicubic up and down, with and without align_corners
    for size, corners in (((9, 11), False), ((3, 4), False), ((8, 3), True)):
        want = _separable(x4, [_axis_matrix("bicubic", i, o, align_corners=corners)
                               for i, o in zip((5, 6), size)])
        check(td.interpolate(td.asarray(x4), size=size, mode="bicubic", align_corners=corners),
              want)
    # area: adaptive average pooling, 1 to 3 axes
    for x, size in ((x3, (3,)), (x4, (2, 4)), (x5, (2, 3, 2))):
        want = _separable(x, [_axis_matrix("area", i, o) for i, o in zip(x.shape[2:], size)])
        check(td.interpolate(td.asarray(x), size=size, mode="area"), want)
    # nearest-exact picks exact values
    want = _separable(x4, [_axis_matrix("nearest-exact", i, o) for i, o in zip((5, 6), (7, 4))])
    check(td.interpolate(td.asarray(x4), size=(7, 4), mode="nearest-exact"), want, rtol=0,
          atol=0)


def _aa_matrix(cubic, n_in, n_out, scale=None, align_corners=False):
    """PyTorch's antialiased weights (PIL's filters): input i's centre i + 0.5 at its distance
    from the output's centre s (o + 0.5), in output pixels when downsampling, normalized."""
    if align_corners:
        s = (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
    else:
        s = 1.0 / scale if scale else n_in / n_out
    stretch = max(s, 1.0)
    support = (2.0 if cubic else 1.0) * stretch
    m = np.zeros((n_out, n_in))
    for o in range(n_out):
        c = s * (o + 0.5)
        lo, hi = max(int(c - support + 0.5), 0), min(int(c + support + 0.5), n_in)
        d = np.abs((np.arange(lo, hi) + 0.5 - c) / stretch)
        if cubic:
            a = -0.5
            w = np.where(d < 1, (a + 2) * d**3 - (a + 3) * d**2 + 1,
                         np.where(d < 2, a * d**3 - 5 * a * d**2 + 8 * a * d - 4 * a, 0))
        else:
            w = np.maximum(1 - d, 0)
        m[o, lo:hi] = w / w.sum() if w.sum() != 0 else w
    return m


def test_interpolate_antialias():
    # halving with the triangle filter: weights 1/8, 3/8, 3/8, 1/8 around each output
    row = np.zeros((1, 1, 1, 8), np.float32)
    row[..., 3] = 8
    got = td.interpolate(td.asarray(row), size=(1, 4), mode="bilinear", antialias=True)
    check(got, np.array([0, 3, 1, 0], np.float32).reshape(1, 1, 1, 4), rtol=0, atol=1e-6)
    x = rnd(2, 3, 17, 23, seed=35)
    for mode, cubic in (("bilinear", False), ("bicubic", True)):
        for size, corners in (((5, 4), False), ((16, 30), False), ((4, 7), True)):
            want = _separable(x, [_aa_matrix(cubic, i, o, align_corners=corners)
                                  for i, o in zip((17, 23), size)])
            check(td.interpolate(td.asarray(x), size=size, mode=mode, align_corners=corners,
                                 antialias=True), want)
        want = _separable(x, [_aa_matrix(cubic, 17, 6, scale=0.37),
                              _aa_matrix(cubic, 23, 9, scale=0.4)])
        check(td.interpolate(td.asarray(x), scale_factor=(0.37, 0.4), mode=mode,
                             antialias=True), want)


def test_interpolate_scale_factor():
    x = rnd(1, 2, 5, 7, seed=34)
    # PyTorch samples with 1 / scale_factor, not input / output sizes: 5 * 1.7 -> 8 rows.
    for mode in ("nearest", "nearest-exact", "bilinear", "bicubic"):
        axis_mode = "linear" if mode == "bilinear" else mode
        want = _separable(x, [_axis_matrix(axis_mode, 5, 8, scale=1.7),
                              _axis_matrix(axis_mode, 7, 4, scale=0.6)])
        got = td.interpolate(td.asarray(x), scale_factor=(1.7, 0.6), mode=mode)
        assert got.shape == (1, 2, 8, 4)
        check(got, want)
    # recompute_scale_factor=True samples with input / output sizes
    want = _separable(x, [_axis_matrix("linear", 5, 8),
                          _axis_matrix("linear", 7, 4)])
    check(td.interpolate(td.asarray(x), scale_factor=(1.7, 0.6), mode="bilinear",
                         recompute_scale_factor=True), want)
    with pytest.raises(ValueError, match="align_corners"):
        td.interpolate(td.asarray(x), size=(3, 3), mode="area", align_corners=False)
    with pytest.raises(ValueError, match="4-D"):
        td.interpolate(td.asarray(x[0]), size=3, mode="bicubic")
    with pytest.raises(ValueError, match="antialias is restricted"):
        td.interpolate(td.asarray(x), size=(3, 3), mode="area", antialias=True)
    with pytest.raises(ValueError, match="2 scale factors"):
        td.interpolate(td.asarray(x), scale_factor=(2, 2, 2))


def test_embedding_max_norm_and_padding_idx():
    idx = np.array([[0, 3], [5, 1]])
    table = rnd(6, 3, seed=17) * 3
    rows = table[idx]
    for p, norm in ((2.0, np.linalg.norm(rows, axis=-1, keepdims=True)),
                    (1, np.abs(rows).sum(-1, keepdims=True))):
        got = td.embedding(td.asarray(idx), td.asarray(table), padding_idx=0, max_norm=1.5,
                           norm_type=p)
        check(got, np.where(norm > 1.5, rows * (1.5 / (norm + 1e-7)), rows), rtol=1e-6)
    # the picked rows of weight are rewritten, as torch.embedding_renorm_ does; the others stay
    norm = np.linalg.norm(table, axis=-1, keepdims=True)
    renormed = np.where(norm > 1.5, table * (1.5 / (norm + 1e-7)), table)
    want = table.copy()
    want[[0, 1, 3, 5]] = renormed[[0, 1, 3, 5]]
    w = td.asarray(table)
    td.embedding(td.asarray(np.array([[0, 3], [5, 1], [3, 3]])), w, max_norm=1.5)
    check(w, want, rtol=1e-6)
    w_np = table.copy()
    td.embedding(td.asarray(idx), w_np, max_norm=1.5)
    check(w_np, want, rtol=1e-6)
    with pytest.raises(ValueError, match="padding_idx 6 is outside the 6 rows"):
        td.embedding(td.asarray(idx), td.asarray(table), padding_idx=6)


def test_linear_embedding_pixel_shuffle():
    x, w, b = rnd(2, 3, 5), rnd(4, 5, seed=15), rnd(4, seed=16)
    check(td.linear(td.asarray(x), td.asarray(w), td.asarray(b)), x @ w.T + b)
    idx = np.array([[0, 3], [5, 1]])
    table = rnd(6, 3, seed=17)
    check(td.embedding(td.asarray(idx), td.asarray(table)), table[idx], rtol=0, atol=0)
    y = rnd(2, 8, 3, 2, seed=18)
    want = y.reshape(2, 2, 2, 2, 3, 2).transpose(0, 1, 4, 2, 5, 3).reshape(2, 2, 6, 4)
    shuffled = td.pixel_shuffle(td.asarray(y), 2)
    check(shuffled, want, rtol=0, atol=0)
    check(td.pixel_unshuffle(shuffled, 2), y, rtol=0, atol=0)


def test_batch_norm_updates_running_statistics():
    x = rnd(4, 3, 5, seed=24).astype(np.float64)
    want_m = 0.8 * np.zeros(3) + 0.2 * x.mean(axis=(0, 2))
    want_v = 0.8 * np.ones(3) + 0.2 * x.var(axis=(0, 2), ddof=1)
    m, v = td.asarray(np.zeros(3)), td.asarray(np.ones(3))
    td.batch_norm(td.asarray(x), m, v, training=True, momentum=0.2)
    check(m, want_m, rtol=1e-12, atol=1e-12)
    check(v, want_v, rtol=1e-12, atol=1e-12)
    m_np, v_np = np.zeros(3), np.ones(3)  # NumPy statistics are written in place
    td.batch_norm(td.asarray(x), m_np, v_np, training=True, momentum=0.2)
    check(m_np, want_m, rtol=1e-12, atol=1e-12)
    check(v_np, want_v, rtol=1e-12, atol=1e-12)
    td.batch_norm(td.asarray(x), m, v)  # inference leaves them
    check(m, want_m, rtol=1e-12, atol=1e-12)


def test_norms():
    x = rnd(4, 6, 5, seed=19).astype(np.float64)
    w, b = rnd(6, seed=20).astype(np.float64), rnd(6, seed=21).astype(np.float64)
    mean, var = rnd(6, seed=22).astype(np.float64), np.abs(rnd(6, seed=23)).astype(np.float64)

    def aff(y):
        return y * w[None, :, None] + b[None, :, None]
    check(td.batch_norm(td.asarray(x), td.asarray(mean), td.asarray(var), td.asarray(w),
                        td.asarray(b)),
          aff((x - mean[None, :, None]) / np.sqrt(var[None, :, None] + 1e-5)))
    m, v = x.mean(axis=(0, 2), keepdims=True), x.var(axis=(0, 2), keepdims=True)
    check(td.batch_norm(td.asarray(x), None, None, td.asarray(w), td.asarray(b), training=True),
          aff((x - m) / np.sqrt(v + 1e-5)))
    g = x.reshape(4, 3, 10)
    gn = ((g - g.mean(-1, keepdims=True)) / np.sqrt(g.var(-1, keepdims=True) + 1e-5))
    check(td.group_norm(td.asarray(x), 3, td.asarray(w), td.asarray(b)), aff(gn.reshape(x.shape)))
    inn = (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-5)
    check(td.instance_norm(td.asarray(x), weight=td.asarray(w), bias=td.asarray(b)), aff(inn))
    rms = x / np.sqrt((x ** 2).mean(-1, keepdims=True) + 1e-6)
    check(td.rms_norm(td.asarray(x), (5,), eps=1e-6), rms)
    with pytest.raises(ValueError, match="group_norm"):
        td.group_norm(td.asarray(x), 4)
    with pytest.raises(ValueError, match="batch_norm"):
        td.batch_norm(td.asarray(x), None, None)


def test_attention():
    q, k, v = rnd(2, 3, 4, seed=24), rnd(2, 5, 4, seed=25), rnd(2, 5, 6, seed=26)
    s = q.astype(np.float64) @ k.transpose(0, 2, 1) / 2.0
    check(td.scaled_dot_product_attention(td.asarray(q), td.asarray(k), td.asarray(v)),
          np_softmax(s) @ v)
    mask = np.tril(np.ones((3, 5), bool))
    masked = np.where(mask, s, -np.inf)
    check(td.scaled_dot_product_attention(td.asarray(q), td.asarray(k), td.asarray(v),
                                          is_causal=True), np_softmax(masked) @ v)
    check(td.scaled_dot_product_attention(td.asarray(q), td.asarray(k), td.asarray(v),
                                          attn_mask=td.asarray(mask)), np_softmax(masked) @ v)
    bias = rnd(3, 5, seed=27)
    check(td.scaled_dot_product_attention(td.asarray(q), td.asarray(k), td.asarray(v),
                                          attn_mask=td.asarray(bias), scale=0.1),
          np_softmax(s * 0.2 + bias) @ v)
    none = np.zeros((3, 5), bool)
    got = np.asarray(td.scaled_dot_product_attention(td.asarray(q), td.asarray(k), td.asarray(v),
                                                     attn_mask=td.asarray(none)))
    assert np.isnan(got).all()  # fully masked rows give NaN, as in PyTorch
    # large scores stay finite (max subtracted before exp)
    big = td.scaled_dot_product_attention(td.asarray(q * 1e3), td.asarray(k * 1e3), td.asarray(v))
    assert np.isfinite(np.asarray(big)).all()


def test_attention_dropout_and_grouped_heads():
    q, k, v = rnd(2, 4, 3, 8, seed=28), rnd(2, 2, 5, 8, seed=29), rnd(2, 2, 5, 6, seed=30)
    kk, vv = np.repeat(k, 2, axis=1), np.repeat(v, 2, axis=1)  # head h reads k/v head h // 2
    s = q.astype(np.float64) @ kk.transpose(0, 1, 3, 2) / math.sqrt(8)
    args = [td.asarray(q), td.asarray(k), td.asarray(v)]
    check(td.scaled_dot_product_attention(*args, enable_gqa=True), np_softmax(s) @ vv)
    # dropout on the weights: td.dropout's mask of the same seed and shape
    keep = np.asarray(td.dropout(td.asarray(np.ones(s.shape, np.float32)), 0.3, seed=5))
    assert 0 < (keep == 0).mean() < 0.6
    got = td.scaled_dot_product_attention(*args, dropout_p=0.3, enable_gqa=True, seed=5)
    check(got, (np_softmax(s) * keep) @ vv)
    causal = np.where(np.tril(np.ones((3, 5), bool)), s, -np.inf)
    got = td.scaled_dot_product_attention(*args, dropout_p=0.3, is_causal=True, enable_gqa=True,
                                          seed=5)
    check(got, (np_softmax(causal) * keep) @ vv)
    with pytest.raises(ValueError, match="4 query heads are not a multiple of 3"):
        td.scaled_dot_product_attention(args[0], td.asarray(rnd(2, 3, 5, 8)),
                                        td.asarray(rnd(2, 3, 5, 6)), enable_gqa=True)


def test_dropout():
    x = np.ones((100, 100), np.float32)
    a = np.asarray(td.dropout(td.asarray(x), 0.25, seed=3))
    b = np.asarray(td.dropout(td.asarray(x), 0.25, seed=3))
    np.testing.assert_array_equal(a, b)  # same seed, same mask
    assert set(np.unique(a)) <= {0.0, np.float32(1 / 0.75)}
    assert abs((a == 0).mean() - 0.25) < 0.02
    # The mask is td.rand's Philox stream of the seed: kept where u < 1 - p.
    u = np.asarray(td.random.uniform(size=(100, 100), seed=3, dtype=td.float32))
    np.testing.assert_array_equal(a == 0, ~(u < np.float32(0.75)))
    check(td.dropout(td.asarray(x), 0.5, training=False), x, rtol=0, atol=0)


def test_weighted_losses():
    x = rnd(6, 5, seed=28).astype(np.float64)
    t = np.array([0, 1, 2, 4, 1, 3])
    w = np.array([0.5, 2.0, 1.0, 0.0, 3.0])
    logp = x - np.log(np.exp(x).sum(1, keepdims=True))
    picked = -logp[np.arange(6), t] * w[t]
    check(td.cross_entropy(td.asarray(x), td.asarray(t), weight=td.asarray(w)),
          picked.sum() / w[t].sum())
    check(td.nll_loss(td.asarray(logp), td.asarray(t), weight=td.asarray(w), reduction="sum"),
          picked.sum())
    keep = t != 1
    check(td.nll_loss(td.asarray(logp), td.asarray(t), weight=td.asarray(w), ignore_index=1),
          picked[keep].sum() / w[t][keep].sum())
    with pytest.raises(ValueError, match="cross_entropy's class weight"):
        td.cross_entropy(td.asarray(x), td.asarray(t), weight=td.asarray(w[:4]))


def np_ctc(lp, target, steps, blank=0):
    """-log of the summed probability of every alignment path that collapses to target."""
    import itertools
    total = 0.0
    for path in itertools.product(range(lp.shape[1]), repeat=steps):
        collapsed = [k for i, k in enumerate(path) if k != blank and (i == 0 or path[i - 1] != k)]
        if collapsed == list(target):
            total += math.exp(sum(lp[t, k] for t, k in enumerate(path)))
    return -math.log(total) if total > 0 else math.inf


def test_ctc_loss():
    rng = np.random.default_rng(30)
    x = rng.standard_normal((5, 2, 3))
    lp = x - np.log(np.exp(x).sum(-1, keepdims=True))
    targets = np.array([[1, 1], [2, 0]])
    il, tl = np.array([5, 4]), np.array([2, 1])
    want = np.array([np_ctc(lp[:, 0], [1, 1], 5), np_ctc(lp[:, 1], [2], 4)])
    args = [td.asarray(lp), td.asarray(targets), td.asarray(il), td.asarray(tl)]
    check(td.ctc_loss(*args, reduction="none"), want, rtol=1e-9, atol=1e-12)
    check(td.ctc_loss(*args), np.mean(want / tl), rtol=1e-9, atol=1e-12)
    check(td.ctc_loss(*args, reduction="sum"), want.sum(), rtol=1e-9, atol=1e-12)
    impossible = [td.asarray(lp[:2]), td.asarray(targets), td.asarray(np.array([2, 2])),
                  td.asarray(tl)]
    assert np.isinf(np.asarray(td.ctc_loss(*impossible, reduction="none"))[0])
    assert np.asarray(td.ctc_loss(*impossible, reduction="none", zero_infinity=True))[0] == 0
    with pytest.raises(td.TensorError, match="ctc_loss: input length 9"):
        np.asarray(td.ctc_loss(args[0], args[1], td.asarray(np.array([9, 1])), args[3]))
    # PyTorch's concatenated targets: [1, 1] then [2]
    flat = [args[0], td.asarray(np.array([1, 1, 2])), args[2], args[3]]
    check(td.ctc_loss(*flat, reduction="none"), want, rtol=1e-9, atol=1e-12)
    empty = [args[0], td.asarray(np.zeros(0, np.int64)), args[2], td.asarray(np.array([0, 0]))]
    check(td.ctc_loss(*empty, reduction="none"),
          [np_ctc(lp[:, 0], [], 5), np_ctc(lp[:, 1], [], 4)], rtol=1e-9, atol=1e-12)
