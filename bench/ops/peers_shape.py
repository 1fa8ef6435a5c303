"""bench/ops peers: shape and indexing (ops_table_shape.cpp). tensord materializes every result,
so NumPy's views are copied to do the same work. numpy_ops(i) and
scipy_ops(i, sc) map names to calls over the inputs i of numpy_peer.make_inputs."""
import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

def copy(a):
    """A new array even where `a` is a contiguous view (np.ascontiguousarray would not copy)."""
    return np.array(a, copy=True)


def put(x, index, values):
    z = x.copy()
    z[index] = values
    return z


def scatter(x, index, src, ufunc=None):
    """torch.scatter(_add/_reduce) along axis 1 of 2-D arrays."""
    z = x.copy()
    rows = np.arange(x.shape[0])[:, None]
    if ufunc is None:
        z[rows, index] = src
    else:
        ufunc.at(z, (rows, index), src)
    return z


def numpy_ops(i):
    x, y, mask, ints = i.x, i.y, i.mask, i.ints
    return {
        "split": lambda: [copy(p) for p in np.split(x, 4, axis=0)],
        "chunk": lambda: [copy(p) for p in np.array_split(x, 4, axis=1)],
        "tile": lambda: np.tile(x, (1, 2)), "repeat": lambda: np.tile(x, (2, 1)),
        "repeat_interleave": lambda: np.repeat(x, 2, axis=1),
        "repeat_interleave_tensor": lambda: np.repeat(x, i.counts, axis=0),
        "roll": lambda: np.roll(x, (7, 13), axis=(0, 1)), "rot90": lambda: copy(np.rot90(x)),
        "diag": lambda: np.diag(x).copy(), "diag_embed": lambda: np.diag(i.weight),
        "diagonal": lambda: np.diagonal(x).copy(), "tril": lambda: np.tril(x),
        "triu": lambda: np.triu(x), "narrow": lambda: copy(x[:, 100:900]),
        "unfold": lambda: copy(sliding_window_view(x, 4, axis=1)[:, ::4]),
        "broadcast_tensors": lambda: [copy(t) for t in np.broadcast_arrays(i.col, i.weight)],
        "meshgrid": lambda: np.meshgrid(i.weight, i.edges, indexing="ij"),
        "take": lambda: np.take(x, i.flat_index),
        "take_along_dim": lambda: np.take_along_axis(x, i.index, axis=1),
        "scatter": lambda: scatter(x, i.index, y),
        "scatter_add": lambda: scatter(x, i.index, y, np.add),
        "scatter_reduce_amax": lambda: scatter(x, i.index, y, np.maximum),
        "index_add": lambda: _index_add(x, i.classes, y),
        "index_put": lambda: put(x, i.classes, y),
        "index_put_bool": lambda: put(x, mask, i.weight[:1]),
        "masked_fill": lambda: np.where(mask, np.float32(0), x),
        "masked_select": lambda: x[mask],
        "where_one_arg": lambda: np.nonzero(mask), "nonzero": lambda: np.argwhere(mask),
        "unique": lambda: np.unique(ints, return_counts=True),
        "unique_inverse": lambda: np.unique(ints, return_inverse=True)[1].reshape(ints.shape),
        "searchsorted": lambda: np.searchsorted(i.edges, x),
        "bucketize": lambda: np.searchsorted(i.edges, x),
        "one_hot": lambda: (i.shifts[..., None] == np.arange(8)).astype(np.int64),
    }


def _index_add(x, index, src):
    z = x.copy()
    np.add.at(z, index, src)
    return z


def scipy_ops(i, sc):
    return {}
