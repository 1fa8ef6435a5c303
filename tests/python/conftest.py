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

    def __init__(self, tcp=False):
        self.dir = tempfile.mkdtemp(prefix="tensord-py-", dir="/tmp")
        self.socket = os.path.join(self.dir, "tensord.sock")
        self.address = "unix:" + self.socket
        self.log_path = os.path.join(self.dir, "daemon.log")
        listen = ["--listen", self.address]
        if tcp:  # also TCP loopback on a free port (self.tcp_address once listening)
            listen += ["--listen", "tcp:127.0.0.1:0"]
        with open(self.log_path, "w") as log:
            self.process = subprocess.Popen([_daemon_binary()] + listen,
                                            stdout=log, stderr=subprocess.STDOUT,
                                            stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        while not self._accepts():
            if self.process.poll() is not None:
                raise RuntimeError(f"tensord exited early: {self.log()}")
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("tensord did not start listening in 30 s")
            time.sleep(0.02)
        self.tcp_address = None
        for line in self.log().splitlines():
            if "listening on tcp:" in line:
                self.tcp_address = line.split("listening on ", 1)[1].strip()

    def _accepts(self):
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            try:
                s.connect(self.socket)
                return True
            except OSError:
                return False

    def log(self):
        with open(self.log_path) as f:
            return f.read()

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


@pytest.fixture(scope="session")
def daemon():
    d = Daemon(tcp=True)
    yield d
    d.stop()


@pytest.fixture(scope="session", autouse=True)
def session(daemon):
    """Every test runs on one session with the test daemon (the current session)."""
    td.connect(daemon.address)
    yield td.session()
