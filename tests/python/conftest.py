"""Fixtures: a real tensord daemon on a temporary socket, and a session connected to it."""
import os
import shutil
import socket
import subprocess
import tempfile
import time

import pytest

import tensord as td


def _daemon_binary():
    binary = os.environ.get("TENSORD_BIN", "build/bin/tensord")
    if not os.access(binary, os.X_OK):
        pytest.exit(f"tensord daemon binary {binary} is not executable (set TENSORD_BIN)", 2)
    return binary


class Daemon:
    """A tensord process listening on a unix socket in a temporary folder."""

    def __init__(self, tcp=False, args=()):
        self.dir = tempfile.mkdtemp(prefix="tensord-py-", dir="/tmp")
        self.socket = os.path.join(self.dir, "tensord.sock")
        self.address = "unix:" + self.socket
        self.log_path = os.path.join(self.dir, "daemon.log")
        listen = ["--listen", self.address]
        if tcp:  # also TCP loopback on a free port (self.tcp_address once listening)
            listen += ["--listen", "tcp:127.0.0.1:0"]
        listen += list(args)
        env = dict(os.environ)
        if "TENSORD_DAEMON_ASAN_OPTIONS" in env:
            # Sanitizer build (client/python/CMakeLists.txt): the daemon links the sanitizer
            # runtimes itself, so it gets its own options (leaks checked, unlike in the
            # interpreter) and no LD_PRELOAD, which would also load them into the host compiler
            # it spawns for generated kernels, whose deliberate leaks LSan would report.
            env["ASAN_OPTIONS"] = env.pop("TENSORD_DAEMON_ASAN_OPTIONS")
            env.pop("LD_PRELOAD", None)
        with open(self.log_path, "w") as log:
            self.process = subprocess.Popen([_daemon_binary()] + listen,
                                            stdout=log, stderr=subprocess.STDOUT,
                                            stdin=subprocess.DEVNULL, env=env)
        deadline = time.monotonic() + 30
        # It accepts connections before it prints its banner (addresses, then devices); the TCP
        # address is read from the banner (tests/support/daemon/daemon_process.cpp).
        while not self._accepts() or not self._banner_printed():
            if self.process.poll() is not None:
                log = self.log()
                shutil.rmtree(self.dir, ignore_errors=True)
                raise RuntimeError(f"tensord exited early: {log}")
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("tensord did not start listening in 30 s")
            time.sleep(0.02)
        self.tcp_address = None
        self.dashboard_url = None  # with --dashboard: "http://127.0.0.1:PORT/"
        for line in self.log().splitlines():
            if "listening on tcp:" in line:
                self.tcp_address = line.split("listening on ", 1)[1].strip()
            if " dashboard on " in line:
                self.dashboard_url = line.split(" dashboard on ", 1)[1].strip()

    def _accepts(self):
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            try:
                s.connect(self.socket)
                return True
            except OSError:
                return False

    def _banner_printed(self):
        return any(line.startswith("tensord ") and " device " in line
                   for line in self.log().split("\n")[:-1])

    def log(self):
        with open(self.log_path) as f:
            return f.read()

    def stop(self):
        """Stops the daemon; returns its log if it did not exit cleanly (code 0 on SIGTERM),
        else None. Its log lives in a folder removed here, so this is the last chance to see
        what it printed (in a sanitizer build: AddressSanitizer/UBSan/LeakSanitizer reports)."""
        clean = True
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
                clean = False
        clean = clean and self.process.returncode == 0
        log = None if clean else f"exit status {self.process.returncode}:\n{self.log()}"
        shutil.rmtree(self.dir, ignore_errors=True)
        return log


@pytest.fixture(scope="session")
def daemon():
    d = Daemon(tcp=True)
    yield d
    failure = d.stop()
    if failure is not None:
        pytest.fail(f"the test daemon did not exit cleanly, {failure}", pytrace=False)


@pytest.fixture(scope="session", autouse=True)
def session(daemon):
    """Every test runs on one session with the test daemon (the current session)."""
    td.connect(daemon.address)
    yield td.session()
