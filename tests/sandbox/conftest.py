"""Fixtures for the attack suites: one probed sandbox per mode, and servers on the host to reach for."""

from __future__ import annotations

import contextlib
import os
import socket
import tempfile
import threading
from collections.abc import Iterator

import pytest

from rlvr_core.sandbox.runner import Sandbox
from tests.sandbox.modes import MODES, open_sandbox


@pytest.fixture(scope="module", params=MODES)
def sandbox(request: pytest.FixtureRequest) -> Iterator[Sandbox]:
    """A sandbox in each mode this host can provide (the others are skipped with the reason)."""
    sandbox = open_sandbox(request.param)
    yield sandbox
    sandbox.close()


@pytest.fixture(scope="module")
def one_sandbox() -> Iterator[Sandbox]:
    """The first mode this host provides, for properties of the grader, which the mode does not change."""
    for mode in MODES:
        try:
            sandbox = open_sandbox(mode)
        except pytest.skip.Exception:
            continue
        yield sandbox
        sandbox.close()
        return
    pytest.skip("this host provides no sandbox mode")


@contextlib.contextmanager
def serving(server: socket.socket, handle) -> Iterator[None]:
    """Run `handle(server)` in a loop on a daemon thread until the block ends, then close the socket."""
    server.settimeout(0.2)
    stop = threading.Event()

    def loop() -> None:
        while not stop.is_set():
            try:
                handle(server)
            except OSError:
                pass

    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
        server.close()


def answer_token(server: socket.socket) -> None:
    conn, _ = server.accept()
    conn.sendall(b"TOKEN")
    conn.close()


@pytest.fixture(scope="module")
def host_server() -> Iterator[int]:
    """A TCP server on the host's 127.0.0.1 that answers TOKEN; returns its port."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    with serving(server, answer_token):
        yield server.getsockname()[1]


@pytest.fixture(scope="module")
def host_udp_server() -> Iterator[tuple[int, list[bytes]]]:
    """A UDP socket on the host's 127.0.0.1 that records every datagram it gets."""
    server = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    server.bind(("127.0.0.1", 0))
    received: list[bytes] = []
    with serving(server, lambda s: received.append(s.recv(100))):
        yield server.getsockname()[1], received


@pytest.fixture(scope="module")
def host_unix_server() -> Iterator[str]:
    """A unix socket anyone may connect to, in a world-traversable folder (as Ray's session sockets are)."""
    folder = tempfile.mkdtemp(prefix="rlvr-unix-")
    os.chmod(folder, 0o755)
    path = os.path.join(folder, "open.sock")
    server = socket.socket(socket.AF_UNIX)
    server.bind(path)
    os.chmod(path, 0o777)
    server.listen()
    with serving(server, answer_token):
        yield path
    os.unlink(path)
    os.rmdir(folder)
