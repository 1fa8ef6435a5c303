"""The session's device settings and figures, after torch: set_float32_matmul_precision and
memory_stats."""
from . import _tensord
from ._session import session


def set_float32_matmul_precision(precision):
    """torch.set_float32_matmul_precision for this session's work sent from now on:
    "highest" (float32), "high" (GPU matmuls may use TF32) or "medium" (may use bfloat16).
    The CPU always computes in float32. Another value raises TensorError."""
    if not isinstance(precision, str):
        raise TypeError("set_float32_matmul_precision expects 'highest', 'high' or 'medium', "
                        f"not {type(precision).__name__}")
    _tensord.set_float32_matmul_precision(session(), precision)


def get_float32_matmul_precision():
    """This session's float32 matmul precision, as the daemon holds it."""
    return _tensord.float32_matmul_precision(session())


def memory_stats(device=None):
    """A device's memory statistics as a dict, like torch.cuda.memory_stats(): for a GPU the
    caching allocator's figures under PyTorch's key names ("allocated_bytes.all.current",
    "reserved_bytes.all.peak", "num_alloc_retries", "num_ooms", ...). The CPU has no caching
    allocator: its dict holds only its host block cache ("host_cache.cached_bytes", ...).
    The "device" entry names the device ("cuda:0", "cpu").

    `device`: None for this session's device, an index into td.info()["devices"], or a name
    such as "cuda:1" or "cpu"."""
    devices = _tensord.memory_stats(session())
    if device is None:
        chosen = [d for d in devices if d["session_device"]]
    elif isinstance(device, int) and not isinstance(device, bool):
        chosen = devices[device:device + 1] if 0 <= device < len(devices) else []
    else:
        name = str(device)
        if name == "cuda":
            name = "cuda:0"
        chosen = [d for d in devices if d["device"] == name]
    if not chosen:
        have = ", ".join(d["device"] for d in devices)
        raise ValueError(f"memory_stats: the daemon has no device {device!r} (it has {have})")
    d = chosen[0]
    return {"device": d["device"], **d["stats"]}
