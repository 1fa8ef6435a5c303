"""Neural-network ops of issue 4 in the style of torch.nn.functional (docs/ops.md
"Neural-network ops"): convolutions, pooling, normalization, attention, dropout, interpolation
and pixel shuffling. Each records one node; shape and dtype mistakes raise at the caller's line
(ValueError for shapes and attributes, TypeError for dtypes)."""
import math

from . import _tensord
from ._array import Array, _operand_array
from ._location import caller

__all__ = ["conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
           "conv_transpose3d", "max_pool1d", "max_pool2d", "max_pool3d", "avg_pool1d",
           "avg_pool2d", "avg_pool3d", "adaptive_avg_pool1d", "adaptive_avg_pool2d",
           "adaptive_avg_pool3d", "adaptive_max_pool1d", "adaptive_max_pool2d",
           "adaptive_max_pool3d", "max_unpool1d", "max_unpool2d", "max_unpool3d", "lp_pool1d",
           "lp_pool2d", "lp_pool3d", "interpolate",
           "linear",
           "embedding", "rms_norm", "batch_norm", "group_norm", "instance_norm",
           "scaled_dot_product_attention", "dropout", "pixel_shuffle", "pixel_unshuffle",
           "ctc_loss"]


def _t(x):
    return _operand_array(x)._t


def _opt(x):
    return None if x is None else _t(x)


def _ints(v, what):
    if isinstance(v, bool):
        raise TypeError(f"{what} must be an int or a sequence of ints, got {v!r}")
    if isinstance(v, int):
        return [v]
    try:
        return [int(i) for i in v]
    except TypeError:
        raise TypeError(f"{what} must be an int or a sequence of ints, got {v!r}") from None


def _conv_padding(padding, weight, dilation, stride, nd):
    """PyTorch's string paddings as (the op's padding per axis, extra right padding per axis or
    None): 'valid' is 0; 'same' keeps the size (stride 1) with dilation * (k - 1) in all, the
    odd unit on the right (applied as a pad of the input first, as PyTorch does)."""
    if not isinstance(padding, str):
        return _ints(padding, "padding"), None
    if padding == "valid":
        return [0], None
    if padding != "same":
        raise ValueError(f"padding must be 'valid', 'same' or ints, got {padding!r}")
    if any(s != 1 for s in _ints(stride, "stride")):
        raise ValueError("padding='same' needs stride 1")
    kernel = _operand_array(weight).shape[2:]
    dil = _ints(dilation, "dilation")
    dil = dil * nd if len(dil) == 1 else dil
    totals = [d * (k - 1) for k, d in zip(kernel, dil)]
    extra = [t % 2 for t in totals]
    return [t // 2 for t in totals], (extra if any(extra) else None)


def _batched(nd, input):  # noqa: A002
    """input as (N, C, spatial...), and whether it came unbatched (C, spatial...)."""
    x = _operand_array(input)
    if x.ndim == nd + 1:
        return x.reshape((1,) + tuple(x.shape)), True
    return x, False


def _unbatched(y, unbatched):
    return y.reshape(tuple(y.shape[1:])) if unbatched else y


def _conv(nd, input, weight, bias, stride, padding, dilation, groups):  # noqa: A002
    pad, extra = _conv_padding(padding, weight, dilation, stride, nd)
    x, unbatched = _batched(nd, input)
    t = x._t
    if extra is not None:
        t = _tensord.pad(t, [0] * 4 + [p for e in extra for p in (0, e)], 0, caller())
    y = Array(_tensord.conv(nd, t, _t(weight), _opt(bias), _ints(stride, "stride"), pad,
                            _ints(dilation, "dilation"), int(groups), caller()))
    return _unbatched(y, unbatched)


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):  # noqa: A002
    """input (N, C_in, L); weight (C_out, C_in / groups, k); bias (C_out,)."""
    return _conv(1, input, weight, bias, stride, padding, dilation, groups)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):  # noqa: A002
    """input (N, C_in, H, W), also channels-last views; weight (C_out, C_in / groups, kH, kW)."""
    return _conv(2, input, weight, bias, stride, padding, dilation, groups)


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):  # noqa: A002
    return _conv(3, input, weight, bias, stride, padding, dilation, groups)


def _conv_transpose(nd, input, weight, bias, stride, padding,  # noqa: A002
                    output_padding, groups, dilation):
    x, unbatched = _batched(nd, input)
    y = Array(_tensord.conv_transpose(
        nd, x._t, _t(weight), _opt(bias), _ints(stride, "stride"),
        _ints(padding, "padding"), _ints(output_padding, "output_padding"), int(groups),
        _ints(dilation, "dilation"), caller()))
    return _unbatched(y, unbatched)


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0,  # noqa: A002
                     output_padding=0, groups=1, dilation=1):
    """input (N, C_in, L); weight (C_in, C_out / groups, k), PyTorch's argument order."""
    return _conv_transpose(1, input, weight, bias, stride, padding, output_padding, groups,
                           dilation)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0,  # noqa: A002
                     output_padding=0, groups=1, dilation=1):
    """weight (C_in, C_out / groups, kH, kW), PyTorch's layout and argument order."""
    return _conv_transpose(2, input, weight, bias, stride, padding, output_padding, groups,
                           dilation)


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0,  # noqa: A002
                     output_padding=0, groups=1, dilation=1):
    """input (N, C_in, D, H, W); weight (C_in, C_out / groups, kD, kH, kW)."""
    return _conv_transpose(3, input, weight, bias, stride, padding, output_padding, groups,
                           dilation)


def _stride(stride):
    return [] if stride is None else _ints(stride, "stride")


def _max_pool(nd, input, kernel_size, stride, padding, dilation, ceil_mode,  # noqa: A002
              return_indices):
    r = _tensord.max_pool(nd, _t(input), _ints(kernel_size, "kernel_size"), _stride(stride),
                          _ints(padding, "padding"), _ints(dilation, "dilation"),
                          bool(ceil_mode), bool(return_indices), caller())
    return (Array(r[0]), Array(r[1])) if return_indices else Array(r)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1,  # noqa: A002
               ceil_mode=False, return_indices=False):
    """return_indices: also each maximum's position in its plane (int64), max_unpool's input."""
    return _max_pool(1, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1,  # noqa: A002
               ceil_mode=False, return_indices=False):
    return _max_pool(2, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1,  # noqa: A002
               ceil_mode=False, return_indices=False):
    return _max_pool(3, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def _avg_pool(nd, input, kernel_size, stride, padding, ceil_mode,  # noqa: A002
              count_include_pad, divisor_override):
    divisor = None if divisor_override is None else int(divisor_override)
    return Array(_tensord.avg_pool(nd, _t(input), _ints(kernel_size, "kernel_size"),
                                   _stride(stride), _ints(padding, "padding"), bool(ceil_mode),
                                   bool(count_include_pad), divisor, caller()))


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,  # noqa: A002
               count_include_pad=True):
    return _avg_pool(1, input, kernel_size, stride, padding, ceil_mode, count_include_pad, None)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,  # noqa: A002
               count_include_pad=True, divisor_override=None):
    return _avg_pool(2, input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                     divisor_override)


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False,  # noqa: A002
               count_include_pad=True, divisor_override=None):
    return _avg_pool(3, input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                     divisor_override)


def _lp_pool(nd, input, norm_type, kernel_size, stride, ceil_mode):  # noqa: A002
    """PyTorch's lp_pool: (avg_pool(x ** p) * prod(kernel_size)) ** (1 / p), padding 0 (its
    sign(out) * relu(abs(out)) is out itself)."""
    k = _ints(kernel_size, "kernel_size")
    x = _operand_array(input)
    out = _avg_pool(nd, x ** float(norm_type), kernel_size, stride, 0, ceil_mode, True, None)
    return (out * float(math.prod(k * nd if len(k) == 1 else k))) ** (1.0 / float(norm_type))


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):  # noqa: A002
    return _lp_pool(1, input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):  # noqa: A002
    return _lp_pool(2, input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):  # noqa: A002
    return _lp_pool(3, input, norm_type, kernel_size, stride, ceil_mode)


def _output_size(nd, x, output_size):
    """An int or nd sizes; None keeps that axis's input size."""
    size = [output_size] * nd if isinstance(output_size, int) else list(output_size)
    if len(size) != nd:
        raise ValueError(f"output_size needs 1 or {nd} values, got {len(size)}")
    return [x.shape[-nd + i] if s is None else int(s) for i, s in enumerate(size)]


def adaptive_avg_pool1d(input, output_size):  # noqa: A002
    x = _operand_array(input)
    return Array(_tensord.adaptive_avg_pool(1, _t(x), _output_size(1, x, output_size), caller()))


def adaptive_avg_pool2d(input, output_size):  # noqa: A002
    """output_size: an int or (height, width); None keeps that axis's input size."""
    x = _operand_array(input)
    return Array(_tensord.adaptive_avg_pool(2, _t(x), _output_size(2, x, output_size), caller()))


def adaptive_avg_pool3d(input, output_size):  # noqa: A002
    x = _operand_array(input)
    return Array(_tensord.adaptive_avg_pool(3, _t(x), _output_size(3, x, output_size), caller()))


def _adaptive_max(nd, input, output_size, return_indices):  # noqa: A002
    x = _operand_array(input)
    r = _tensord.adaptive_max_pool(nd, _t(x), _output_size(nd, x, output_size),
                                   bool(return_indices), caller())
    return (Array(r[0]), Array(r[1])) if return_indices else Array(r)


def adaptive_max_pool1d(input, output_size, return_indices=False):  # noqa: A002
    return _adaptive_max(1, input, output_size, return_indices)


def adaptive_max_pool2d(input, output_size, return_indices=False):  # noqa: A002
    return _adaptive_max(2, input, output_size, return_indices)


def adaptive_max_pool3d(input, output_size, return_indices=False):  # noqa: A002
    return _adaptive_max(3, input, output_size, return_indices)


def _max_unpool(nd, input, indices, kernel_size, stride, padding, output_size):  # noqa: A002
    size = [] if output_size is None else [int(s) for s in output_size]
    return Array(_tensord.max_unpool(nd, _t(input), _t(indices), _ints(kernel_size, "kernel_size"),
                                     _stride(stride), _ints(padding, "padding"), size, caller()))


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0,  # noqa: A002
                 output_size=None):
    """Zeros with input's values at indices (a max pool's); output_size: the spatial sizes (or
    the whole shape), else (in - 1) stride - 2 padding + kernel_size per axis."""
    return _max_unpool(1, input, indices, kernel_size, stride, padding, output_size)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0,  # noqa: A002
                 output_size=None):
    return _max_unpool(2, input, indices, kernel_size, stride, padding, output_size)


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0,  # noqa: A002
                 output_size=None):
    return _max_unpool(3, input, indices, kernel_size, stride, padding, output_size)


# PyTorch's mode names: the op's mode number and the spatial ranks the mode takes.
_MODES = {"nearest": (0, (1, 2, 3)), "linear": (1, (1,)), "bilinear": (1, (2,)),
          "trilinear": (1, (3,)), "bicubic": (2, (2,)), "area": (3, (1, 2, 3)),
          "nearest-exact": (4, (1, 2, 3))}
_SAMPLED = ("linear", "bilinear", "trilinear", "bicubic")


def interpolate(input, size=None, scale_factor=None, mode="nearest",  # noqa: A002
                align_corners=None, recompute_scale_factor=None, antialias=False):
    """torch.nn.functional.interpolate: modes nearest, linear, bilinear, trilinear, bicubic,
    area and nearest-exact on (N, C, spatial...) inputs. With scale_factor the output size is
    floor(size * scale) and, as in PyTorch, the sampling uses 1 / scale_factor unless
    recompute_scale_factor=True (then input / output sizes). antialias: PyTorch's antialiased
    bilinear and bicubic filters (stretched by the scale when downsampling)."""
    x = _operand_array(input)
    if mode not in _MODES:
        raise ValueError(f"interpolate supports modes {sorted(_MODES)}, got {mode!r}")
    number, ranks = _MODES[mode]
    nd = len(x.shape) - 2
    if nd not in ranks:
        want = " or ".join(f"{r + 2}-D" for r in ranks)
        raise ValueError(f"interpolate mode {mode!r} needs a {want} input, got shape "
                         f"{tuple(x.shape)}")
    if align_corners is not None and mode not in _SAMPLED:
        raise ValueError("align_corners can only be set with the interpolating modes: "
                         + " | ".join(_SAMPLED))
    if antialias and (mode not in ("bilinear", "bicubic") or nd != 2):
        raise ValueError("interpolate: antialias is restricted to the bilinear and bicubic modes "
                         "on a 4-D input")
    if (size is None) == (scale_factor is None):
        raise ValueError("interpolate needs exactly one of size and scale_factor")
    scales = []
    if size is not None:
        if recompute_scale_factor:
            raise ValueError("recompute_scale_factor is not meaningful with an explicit size")
        out = _ints(size, "size")
        out = out * nd if len(out) == 1 else out
    else:
        factors = [float(scale_factor)] * nd if isinstance(scale_factor, (int, float)) else \
            [float(f) for f in scale_factor]
        if len(factors) != nd:
            raise ValueError(f"interpolate needs {nd} scale factors for input shape "
                             f"{tuple(x.shape)}, got {len(factors)}")
        out = [int(math.floor(s * f)) for s, f in zip(x.shape[2:], factors)]
        # Area pooling and align_corners do not sample with the factors (nor does PyTorch).
        if not recompute_scale_factor and mode != "area" and not align_corners:
            scales = factors
    return Array(_tensord.interpolate(_t(x), out, number, align_corners, scales, bool(antialias),
                                      caller()))


def linear(input, weight, bias=None):  # noqa: A002
    """input (..., in); weight (out, in); bias (out,)."""
    return Array(_tensord.linear(_t(input), _t(weight), _opt(bias), caller()))


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,  # noqa: A002
              scale_grad_by_freq=False, sparse=False):
    """Rows of weight (num, dim) at the integer indices `input` (any shape). padding_idx and
    scale_grad_by_freq change only PyTorch's gradients, which tensord does not compute:
    padding_idx is range-checked and has no effect on the values. max_norm scales each picked
    row whose norm_type-norm exceeds it by max_norm / (norm + 1e-7) and writes those rows back
    into weight, as torch.embedding_renorm_ does: a tensord array by rebinding it
    (weight[rows] = ..., no sync), a NumPy array in place (which waits for the values)."""
    w = _operand_array(weight)
    if padding_idx is not None and not -w.shape[0] <= int(padding_idx) < w.shape[0]:
        raise ValueError(f"embedding: padding_idx {padding_idx} is outside the {w.shape[0]} "
                         "rows of weight")
    if max_norm is None:
        return Array(_tensord.embedding(_t(input), w._t, caller()))
    rows, table = _tensord.embedding_max_norm(_t(input), w._t, float(max_norm), float(norm_type),
                                              caller())
    rows = Array(rows)
    if isinstance(weight, Array):
        weight._t = table  # rebound, as weight[rows] = ... would
    else:  # only the picked rows come back to be written in place
        import numpy as np
        flat = np.asarray(_operand_array(input)).reshape(-1)
        weight[flat] = np.asarray(rows).reshape(-1, w.shape[-1])
    return rows


def rms_norm(input, normalized_shape, weight=None, eps=None):  # noqa: A002
    nd = 1 if isinstance(normalized_shape, int) else len(normalized_shape)
    return Array(_tensord.rms_norm(_t(input), nd, _opt(weight),
                                   None if eps is None else float(eps), caller()))


def batch_norm(input, running_mean, running_var, weight=None, bias=None,  # noqa: A002
               training=False, momentum=0.1, eps=1e-5):
    """training normalizes with the batch's statistics and, as PyTorch does, updates the running
    statistics given: mean <- (1 - momentum) mean + momentum batch_mean, var likewise with the
    batch's unbiased variance. A tensord array is updated by rebinding it (x[...] = new, no
    sync); a NumPy array in place, which waits for the values."""
    y = Array(_tensord.batch_norm(_t(input), _opt(running_mean), _opt(running_var),
                                  _opt(weight), _opt(bias), bool(training), float(eps),
                                  caller()))
    if training and momentum is not None:
        _update_running_stats(_operand_array(input), running_mean, running_var, float(momentum))
    return y


def _update_running_stats(x, running_mean, running_var, momentum):
    news = _tensord.update_batch_norm_stats(x._t, _opt(running_mean), _opt(running_var),
                                            momentum, caller())
    for stat, new in zip((running_mean, running_var), news):
        if new is None:
            continue
        if isinstance(stat, Array):
            stat[...] = Array(new)
        else:  # NumPy and the like: written in place
            import numpy as np
            np.copyto(stat, np.asarray(Array(new)), casting="unsafe")


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):  # noqa: A002
    return Array(_tensord.group_norm(_t(input), int(num_groups), _opt(weight), _opt(bias),
                                     float(eps), caller()))


def instance_norm(input, running_mean=None, running_var=None, weight=None,  # noqa: A002
                  bias=None, use_input_stats=True, momentum=0.1, eps=1e-5):
    """use_input_stats=False normalizes with the running statistics (batch_norm's inference)."""
    del momentum
    if not use_input_stats:
        return batch_norm(input, running_mean, running_var, weight, bias, False, eps=eps)
    return Array(_tensord.instance_norm(_t(input), _opt(weight), _opt(bias), float(eps),
                                        caller()))


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, scale=None, enable_gqa=False, seed=0):
    """softmax(q k^T * scale + mask) v. attn_mask: bool (True attends) or float (added).
    A row with every position masked gives NaN, as in PyTorch. enable_gqa repeats each key and
    value head for its group of query heads (axis -3), as PyTorch does. dropout_p > 0 writes
    the same softmax out (matmul, mask, softmax) and drops attention weights with td.dropout's
    Philox stream of `seed` (tensord's argument: PyTorch's generator gives other masks)."""
    return Array(_tensord.scaled_dot_product_attention(
        _t(query), _t(key), _t(value), _opt(attn_mask), bool(is_causal),
        None if scale is None else float(scale), float(dropout_p), bool(enable_gqa), int(seed),
        caller()))


def dropout(input, p=0.5, training=True, seed=0):  # noqa: A002
    """Zeroes elements with probability p using td.rand's Philox stream of `seed` (the same
    seed gives the same mask), and scales the rest by 1 / (1 - p)."""
    return Array(_tensord.dropout(_t(input), float(p), bool(training), int(seed), caller()))


def pixel_shuffle(input, upscale_factor):  # noqa: A002
    return Array(_tensord.pixel_shuffle(_t(input), int(upscale_factor), caller()))


def pixel_unshuffle(input, downscale_factor):  # noqa: A002
    return Array(_tensord.pixel_unshuffle(_t(input), int(downscale_factor), caller()))


_CTC_REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}


def _padded_targets(targets, target_lengths):
    """PyTorch's concatenated 1-D targets as rows (N, S) with S the total length, an upper
    bound of every target: row n reads from the sum of the lengths before it (cumulative_sum,
    a clipped arange, take); ctc_loss reads only each row's first target_lengths[n] labels."""
    from . import _creation, _dtypes, _functions, _math_extra  # cycles at import time otherwise
    t = _operand_array(targets)
    lengths = _functions.astype(_operand_array(target_lengths), _dtypes.int64)
    total = t.shape[0]
    if total == 0:
        return _functions.astype(_creation.zeros((lengths.shape[0], 0)), t.dtype)
    starts = _math_extra.cumulative_sum(lengths, include_initial=True)[:-1]
    pos = starts[:, None] + _creation.arange(total, dtype=_dtypes.int64)[None, :]
    pos = _functions.clip(pos, 0, total - 1)
    return _functions.take(t, pos.reshape((-1,))).reshape((lengths.shape[0], total))


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean",
             zero_infinity=False):
    """Forward only. log_probs (T, N, C); targets padded (N, S) or PyTorch's concatenated 1-D
    form (sum(target_lengths),); lengths (N,) integer tensors or sequences."""
    if reduction not in _CTC_REDUCTIONS:
        raise ValueError(f"reduction must be one of {sorted(_CTC_REDUCTIONS)}, got {reduction!r}")
    if _operand_array(targets).ndim == 1:
        targets = _padded_targets(targets, target_lengths)
    return Array(_tensord.ctc_loss(_t(log_probs), _t(targets), _t(input_lengths),
                                   _t(target_lengths), int(blank), _CTC_REDUCTIONS[reduction],
                                   bool(zero_infinity), caller()))
