"""bench/ops peers: neural-network ops (ops_table_nn.cpp). NumPy has none, so these are the
NumPy expressions a user would write: convolutions as tensordot over sliding_window_view
windows, pooling as reshapes, norms from mean and var. numpy_ops(i) and scipy_ops(i, sc) map
names to calls over the inputs i of numpy_peer.make_inputs."""
import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

F = np.float32
EPS = F(1e-5)


def pool_indices(img):
    """max_pool2d's return_indices, kernel 2: each window's argmax as a position in the plane."""
    w = img.reshape(16, 16, 32, 2, 32, 2).transpose(0, 1, 2, 4, 3, 5).reshape(16, 16, 32, 32, 4)
    a = w.argmax(axis=-1)
    rows = np.arange(32)[:, None] * 2 + a // 2
    return rows * 64 + np.arange(32)[None, :] * 2 + a % 2


def conv(x, w, pad):
    """conv1d/2d/3d, stride 1, the same padding on every spatial axis."""
    nd = w.ndim - 2
    xp = np.pad(x, [(0, 0), (0, 0)] + [(pad, pad)] * nd)
    spatial = tuple(range(2, 2 + nd))
    win = sliding_window_view(xp, w.shape[2:], axis=spatial)  # (N, C, out..., k...)
    out = np.tensordot(win, w, axes=([1] + [2 + nd + d for d in range(nd)],
                                      [1] + [2 + d for d in range(nd)]))  # (N, out..., O)
    return np.ascontiguousarray(np.moveaxis(out, -1, 1))


def conv_transpose(x, w, pad):
    """stride 1: the convolution of x with the kernel flipped and its channel axes swapped."""
    k, nd = w.shape[-1], w.ndim - 2
    flipped = w[(slice(None), slice(None), *([slice(None, None, -1)] * nd))]
    return conv(x, np.ascontiguousarray(np.swapaxes(flipped, 0, 1)), k - 1 - pad)


def normalize(x, axes, weight, bias, shape):
    m = x.mean(axis=axes, keepdims=True)
    v = x.var(axis=axes, keepdims=True)
    return (x - m) / np.sqrt(v + EPS) * weight.reshape(shape) + bias.reshape(shape)


def group_norm(x, groups, weight, bias):
    n, c = x.shape[:2]
    g = x.reshape(n, groups, -1)
    g = (g - g.mean(axis=2, keepdims=True)) / np.sqrt(g.var(axis=2, keepdims=True) + EPS)
    return g.reshape(x.shape) * weight[:, None, None] + bias[:, None, None]


def softmax(a):
    e = np.exp(a - a.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def attention(q, k, v, causal):
    s = q @ k.transpose(0, 2, 1) * F(1 / np.sqrt(q.shape[-1]))
    if causal:
        s = s + np.triu(np.full(s.shape[-2:], -np.inf, dtype=F), 1)
    return softmax(s) @ v


def bilinear2x(x):
    """interpolate(mode bilinear, align_corners false) to twice the size."""
    def taps(n):
        src = np.maximum((np.arange(2 * n) + 0.5) / 2 - 0.5, 0)
        i0 = np.floor(src).astype(np.int64)
        return i0, np.minimum(i0 + 1, n - 1), (src - i0).astype(F)
    h0, h1, wh = taps(x.shape[2])
    r = x[:, :, h0, :] * (1 - wh)[:, None] + x[:, :, h1, :] * wh[:, None]
    c0, c1, wc = taps(x.shape[3])
    return r[..., c0] * (1 - wc) + r[..., c1] * wc


def axis_matrix(n_in, n_out, cubic):
    """(n_out, n_in) weights of linear or bicubic (A = -0.75) sampling, align_corners false:
    what a NumPy user resizes with, as matrix products."""
    src = (np.arange(n_out) + 0.5) * n_in / n_out - 0.5
    m = np.zeros((n_out, n_in), dtype=F)
    if not cubic:
        src = np.maximum(src, 0)
        i0 = np.floor(src).astype(np.int64)
        np.add.at(m, (np.arange(n_out), i0), 1 - (src - i0))
        np.add.at(m, (np.arange(n_out), np.minimum(i0 + 1, n_in - 1)), src - i0)
        return m
    f = np.floor(src)
    for k in (-1, 0, 1, 2):
        d, a = np.abs(src - (f + k)), -0.75
        w = np.where(d <= 1, (a + 2) * d**3 - (a + 3) * d**2 + 1,
                     a * d**3 - 5 * a * d**2 + 8 * a * d - 4 * a)
        np.add.at(m, (np.arange(n_out), np.clip(f.astype(np.int64) + k, 0, n_in - 1)), w)
    return m


def resize(x, sizes, cubic):
    """Separable resampling of the trailing axes of x to `sizes`."""
    for axis, n in zip(range(x.ndim - len(sizes), x.ndim), sizes):
        m = axis_matrix(x.shape[axis], n, cubic)
        x = np.moveaxis(np.moveaxis(x, axis, -1) @ m.T, -1, axis)
    return x


def aa_matrix(n_in, n_out):
    """Antialiased bilinear (PIL's triangle stretched by the scale) as an (n_out, n_in) matrix."""
    s = n_in / n_out
    stretch = max(s, 1.0)
    m = np.zeros((n_out, n_in), F)
    for o in range(n_out):
        c = s * (o + 0.5)
        lo, hi = max(int(c - stretch + 0.5), 0), min(int(c + stretch + 0.5), n_in)
        w = np.maximum(1 - np.abs((np.arange(lo, hi) + 0.5 - c) / stretch), 0)
        m[o, lo:hi] = w / w.sum()
    return m


def resize_aa(x, sizes):
    for axis, n in zip(range(x.ndim - len(sizes), x.ndim), sizes):
        x = np.moveaxis(np.moveaxis(x, axis, -1) @ aa_matrix(x.shape[axis], n).T, -1, axis)
    return x


def numpy_ops(i):
    x, img, seq, ch = i.x, i.image, i.seq, i.channel
    c3 = ch[:, None, None]
    return {
        "conv1d": lambda: conv(seq, i.kernel1, 1), "conv2d": lambda: conv(img, i.kernel2, 1),
        "conv3d": lambda: conv(i.volume, i.kernel3, 1),
        "conv_transpose2d": lambda: conv_transpose(img, i.kernel2, 1),
        "conv_transpose3d": lambda: conv_transpose(i.volume, i.kernel3, 1),
        "max_pool1d": lambda: seq.reshape(16, 16, 2048, 2).max(axis=3),
        "avg_pool1d": lambda: seq.reshape(16, 16, 2048, 2).mean(axis=3),
        "max_pool2d": lambda: img.reshape(16, 16, 32, 2, 32, 2).max(axis=(3, 5)),
        "avg_pool2d": lambda: img.reshape(16, 16, 32, 2, 32, 2).mean(axis=(3, 5)),
        "adaptive_avg_pool2d": lambda: img.reshape(16, 16, 16, 4, 16, 4).mean(axis=(3, 5)),
        "adaptive_max_pool2d": lambda: img.reshape(16, 16, 16, 4, 16, 4).max(axis=(3, 5)),
        "max_pool2d_indices": lambda: pool_indices(img),
        "max_pool3d": lambda: i.volume.reshape(4, 16, 8, 2, 16, 2, 16, 2).max(axis=(3, 5, 7)),
        "avg_pool3d": lambda: i.volume.reshape(4, 16, 8, 2, 16, 2, 16, 2).mean(axis=(3, 5, 7)),
        "batch_norm": lambda: (img - (c3 - 1)) / np.sqrt(c3 + EPS) * c3 + c3,
        "batch_norm_training": lambda: normalize(img, (0, 2, 3), ch, ch, (16, 1, 1)),
        "group_norm": lambda: group_norm(img, 4, ch, ch),
        "instance_norm": lambda: normalize(img, (2, 3), ch, ch, (16, 1, 1)),
        "layer_norm": lambda: normalize(x, (1,), i.weight, i.edges, (1000,)),
        "rms_norm": lambda: x / np.sqrt(np.mean(x * x, axis=1, keepdims=True) +
                                        np.finfo(F).eps) * i.weight,
        "embedding": lambda: x[i.classes],
        "dropout": lambda: np.where(i.rng.random(x.shape, dtype=F) < F(0.5), x * F(2), F(0)),
        "rand": lambda: i.rng.random((1000, 1000), dtype=F),
        "randn": lambda: i.rng.standard_normal((1000, 1000), dtype=F),
        "linear": lambda: x @ i.y.T + i.weight,
        "sdpa": lambda: attention(i.q, i.k, i.v, False),
        "sdpa_causal": lambda: attention(i.q, i.k, i.v, True),
        "interpolate_nearest": lambda: img.repeat(2, axis=2).repeat(2, axis=3),
        "interpolate_bilinear": lambda: bilinear2x(img),
        "interpolate_bicubic": lambda: resize(img, (128, 128), True),
        "interpolate_area": lambda: img.reshape(16, 16, 16, 4, 16, 4).mean(axis=(3, 5)),
        "interpolate_bilinear_aa": lambda: resize_aa(img, (16, 16)),
        "interpolate_trilinear": lambda: resize(i.volume, (32, 64, 64), False),
        "pixel_shuffle": lambda: i.shuffled.reshape(16, 16, 2, 2, 32, 32)
        .transpose(0, 1, 4, 2, 5, 3).reshape(16, 16, 64, 64),
        "pixel_unshuffle": lambda: img.reshape(16, 16, 32, 2, 32, 2)
        .transpose(0, 1, 3, 5, 2, 4).reshape(16, 64, 32, 32),
    }


def scipy_ops(i, sc):
    return {}
