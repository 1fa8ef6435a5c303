"""Large transfers: HostBuffer through shared memory on the unix socket, chunked streams over
TCP, sizes from 0 bytes to 300 MiB (and 2 GiB where memory allows), progress bars, and clients
killed mid-transfer leaving nothing behind on the daemon."""
import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import tensord as td

MiB = 1 << 20
HUGE = (2 << 30) + 3  # bytes: one past 2 GiB, so a 32-bit size anywhere would break


def mem_available():
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    return 0


def odd_values(n, dtype):
    """n values of `dtype` whose bytes differ from chunk to chunk (a misplaced chunk shows)."""
    a = np.arange(n, dtype=np.int64)
    if dtype == np.bool_:
        return (a % 3) == 0
    return (a % 251 - 125).astype(dtype)


# element counts around the inline limit (4 MiB) and the chunk boundaries
SIZES = [0, 1, 7, (4 * MiB) // 4 + 1, 3 * MiB + 5, 9 * MiB + 3]


@pytest.mark.parametrize("dtype", [np.bool_, np.uint8, np.int16, np.float32, np.float64])
@pytest.mark.parametrize("n", SIZES)
def test_round_trip_unix(n, dtype):
    a = odd_values(n, dtype)
    x = td.asarray(a)
    np.testing.assert_array_equal(x.numpy(), a)       # host data, never sent
    y = td.where(td.full((), True), x, x)             # computed on the daemon
    out = y.numpy()
    assert out.dtype == a.dtype and out.shape == a.shape
    np.testing.assert_array_equal(out, a)


def test_zero_byte_shapes():
    for shape in [(0,), (3, 0), (0, 5, 2)]:
        a = np.zeros(shape, np.float32)
        out = (td.asarray(a) * 2).numpy()
        assert out.shape == shape


def test_bool_bytes_are_normalized_through_shared_memory():
    raw = np.frombuffer(bytes([0, 1, 2, 255]) * (2 * MiB), dtype=np.bool_)  # 8 MiB
    x = td.asarray(raw)
    out = td.logical_not(td.logical_not(x)).numpy()
    np.testing.assert_array_equal(out.view(np.uint8)[:8], [0, 1, 1, 1, 0, 1, 1, 1])


def test_large_download_is_a_writable_array():
    y = td.ones((3 * MiB,), dtype=td.float32) * 2
    out = y.numpy()
    assert out.flags.writeable and out.dtype == np.float32
    out[0] = 5  # ours to change
    assert out[0] == 5 and out[1] == 2
    assert (y.numpy() == 2).all()


def test_300_MiB_unix():
    a = (np.arange(300 * MiB // 4) % 65521).astype(np.float32)
    x = td.asarray(a)
    y = x + 1
    out = y.numpy()
    assert out.shape == a.shape
    assert out[0] == 1 and out[-1] == a[-1] + 1
    np.testing.assert_array_equal(out[::4099], a[::4099] + 1)
    del x, y, out


CHILD = textwrap.dedent("""
    import sys
    import numpy as np, tensord as td
    td.connect(sys.argv[1])
    for spec in sys.argv[2:]:
        n, dtype = spec.split(":")
        a = np.resize((np.arange(251) - 125).astype(dtype), int(n))
        x = td.asarray(a)
        out = td.where(td.full((), True), x, x).numpy()
        assert out.dtype == a.dtype and out.shape == a.shape, (out.dtype, out.shape)
        assert np.array_equal(out, a), spec
        print("ok", spec, flush=True)
""")


def run_child(address, *specs, timeout=300):
    p = subprocess.run([sys.executable, "-c", CHILD, address, *specs], capture_output=True,
                       text=True, timeout=timeout)
    assert p.returncode == 0, p.stdout + p.stderr
    for spec in specs:
        assert f"ok {spec}" in p.stdout


def test_round_trip_tcp(daemon):
    assert daemon.tcp_address
    run_child(daemon.tcp_address, "0:float32", "1:int8", "7:float64",
              f"{4 * MiB + 1}:uint8", f"{3 * MiB + 5}:float32", f"{9 * MiB + 3}:int16")


def test_300_MiB_tcp(daemon):
    run_child(daemon.tcp_address, f"{300 * MiB // 4}:float32")


def test_2_GiB_unix(daemon):
    # child: the array, its upload buffer, the download and a comparison (8 GiB); daemon: the
    # input and the result (4 GiB)
    if mem_available() < 14 * (1 << 30):
        pytest.skip(f"needs 14 GiB of available memory, {mem_available() >> 20} MiB available")
    run_child(daemon.address, f"{HUGE}:uint8", timeout=600)


@pytest.mark.skipif(os.environ.get("TENSORD_TEST_HUGE") != "1",
                    reason="a manual test (minutes): TENSORD_TEST_HUGE=1")
def test_2_GiB_tcp(daemon):
    run_child(daemon.tcp_address, f"{HUGE}:uint8", timeout=600)


def test_progress_observer_sees_every_byte():
    seen = []
    session = td.session()
    td._tensord.on_transfer(session, lambda p: seen.append((p.upload, p.done, p.total)))
    try:
        a = np.ones(80 * MiB // 4, np.float32)
        (td.asarray(a) + 1).numpy()
    finally:
        td._transfer.attach(session)
    uploads = [s for s in seen if s[0]]
    downloads = [s for s in seen if not s[0]]
    total = 80 * MiB
    assert uploads[0] == (True, 0, total) and uploads[-1] == (True, total, total)
    assert downloads[0] == (False, 0, total) and downloads[-1] == (False, total, total)


def test_progress_bar_draws_when_forced(capsys):
    pytest.importorskip("tqdm")
    td.set_progress(True)
    try:
        (td.asarray(np.ones(70 * MiB, np.uint8)) + 1).numpy()
    finally:
        td.set_progress(None)
    err = capsys.readouterr().err
    assert "tensord upload" in err and "tensord download" in err


def test_no_progress_bar_when_off(capsys):
    td.set_progress(False)
    try:
        (td.asarray(np.ones(70 * MiB, np.uint8)) + 1).numpy()
    finally:
        td.set_progress(None)
    assert "tensord" not in capsys.readouterr().err
    with pytest.raises(TypeError):
        td.set_progress("yes")


KILLED = textwrap.dedent("""
    import sys
    import numpy as np, tensord as td
    td.connect(sys.argv[1])
    a = np.ones(int(sys.argv[2]), np.uint8)
    print("start", flush=True)
    while True:
        x = td.asarray(a)
        (x + 1).numpy()
""")


def daemon_bytes(session):
    return session.stats().daemon_live_bytes


@pytest.mark.parametrize("transport", ["unix", "tcp"])
def test_client_killed_mid_transfer_leaks_nothing(daemon, transport):
    address = daemon.address if transport == "unix" else daemon.tcp_address
    session = td.session()  # on the same daemon: its stats include every session
    before = daemon_bytes(session)
    child = subprocess.Popen([sys.executable, "-c", KILLED, address, str(256 * MiB)],
                             stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "start"
        # Wait until the child's transfers hold daemon memory, then kill it in the middle.
        deadline = time.monotonic() + 60
        while daemon_bytes(session) <= before and time.monotonic() < deadline:
            time.sleep(0.002)
        assert daemon_bytes(session) > before, "the child never held daemon memory"
        time.sleep(0.03)
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
    deadline = time.monotonic() + 30
    while daemon_bytes(session) > before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert daemon_bytes(session) <= before
    # and the daemon keeps serving
    assert float(td.sum(td.asarray(np.ones(10, np.float32)))) == 10.0
