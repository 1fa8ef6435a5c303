"""bench/ops peers: reductions and scans along rows, sorting and losses
(ops_table_reduce.cpp). numpy_ops(i) and scipy_ops(i, sc) map names to calls over the inputs i
of numpy_peer.make_inputs."""
import numpy as np

from peers_math import log_softmax

F = np.float32


def logsumexp(a):
    m = a.max(axis=1, keepdims=True)
    return (m + np.log(np.exp(a - m).sum(axis=1, keepdims=True)))[:, 0]


def running(ufunc, a):
    """cummax/cummin: the running values and the (last) position of each, as tensord gives."""
    values = ufunc.accumulate(a, axis=1)
    hit = np.where(a == values, np.arange(a.shape[1]), 0)
    return values, np.maximum.accumulate(hit, axis=1)


def topk(a, k):
    part = np.argpartition(a, -k, axis=1)[:, -k:]
    vals = np.take_along_axis(a, part, axis=1)
    order = np.argsort(-vals, axis=1, kind="stable")
    return np.take_along_axis(vals, order, axis=1), np.take_along_axis(part, order, axis=1)


def topk_unsorted(a, k):
    """The k largest of each row in input order: argpartition, then the positions sorted."""
    part = np.sort(np.argpartition(a, -k, axis=1)[:, -k:], axis=1)
    return np.take_along_axis(a, part, axis=1), part


def huber(x, y):
    """smooth_l1_loss and huber_loss with beta = delta = 1."""
    d = x - y
    a = np.abs(d)
    return np.mean(np.where(a < 1, F(0.5) * d * d, a - F(0.5)))


def numpy_ops(i):
    x, y, prob, classes = i.x, i.y, i.prob, i.classes
    rows = np.arange(1000)
    return {
        "all": lambda: np.all(x, axis=1), "any": lambda: np.any(x, axis=1),
        "count_nonzero": lambda: np.count_nonzero(x, axis=1),
        "amax": lambda: np.amax(x, axis=1), "amin": lambda: np.amin(x, axis=1),
        "argmax": lambda: np.argmax(x, axis=1), "argmin": lambda: np.argmin(x, axis=1),
        "nansum": lambda: np.nansum(x, axis=1), "nanmean": lambda: np.nanmean(x, axis=1),
        "std": lambda: np.std(x, axis=1), "logsumexp": lambda: logsumexp(x),
        "norm2": lambda: np.linalg.norm(x, 2, axis=1),
        "norm_inf": lambda: np.linalg.norm(x, np.inf, axis=1),
        "norm3": lambda: np.linalg.norm(x, 3, axis=1),
        "cumsum": lambda: np.cumsum(x, axis=1), "cumprod": lambda: np.cumprod(prob, axis=1),
        "cummax": lambda: running(np.maximum, x), "cummin": lambda: running(np.minimum, x),
        "logcumsumexp": lambda: np.logaddexp.accumulate(x, axis=1),
        "sort": lambda: (np.sort(x, axis=1, kind="stable"),
                         np.argsort(x, axis=1, kind="stable")),
        "argsort": lambda: np.argsort(x, axis=1, kind="stable"),
        "topk": lambda: topk(x, 10),
        "topk_500": lambda: topk(x, 500),
        "topk_500_unsorted": lambda: topk_unsorted(x, 500),
        "kthvalue": lambda: np.partition(x, 499, axis=1)[:, 499],
        "median": lambda: np.median(x), "nanmedian": lambda: np.nanmedian(x),
        "median_axis": lambda: np.median(x, axis=1),
        "quantile": lambda: np.quantile(x, 0.3, axis=1),
        "nanquantile": lambda: np.nanquantile(x, 0.3, axis=1),
        "mse_loss": lambda: np.mean(np.square(x - y)), "l1_loss": lambda: np.mean(np.abs(x - y)),
        "smooth_l1_loss": lambda: huber(x, y), "huber_loss": lambda: huber(x, y),
        "binary_cross_entropy": lambda: -np.mean(
            prob * np.maximum(np.log(prob), -100) +
            (1 - prob) * np.maximum(np.log(1 - prob), -100)),
        "bce_with_logits": lambda: np.mean(np.maximum(x, 0) - x * prob +
                                           np.log1p(np.exp(-np.abs(x)))),
        "kl_div": lambda: np.mean(prob * (np.log(prob) - x)),
        "cross_entropy": lambda: -np.mean(log_softmax(x)[rows, classes]),
        "cross_entropy_probs": lambda: -np.mean(np.sum(prob * log_softmax(x), axis=1)),
        "nll_loss": lambda: -np.mean(x[rows, classes]),
        "cosine_similarity": lambda: np.sum(
            (x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-8)) *
            (y / np.maximum(np.linalg.norm(y, axis=1, keepdims=True), 1e-8)), axis=1),
    }


def scipy_ops(i, sc):
    return {
        "mode": lambda: sc.stats.mode(i.shifts, axis=1, keepdims=False),
    }
