"""The caller's side of the sandbox's channels: length-prefixed JSON frames, always with a deadline.

`recv_frame`/`send_frame` talk to the (trusted) zygote over its control
socket. `Session` talks to a served program over two pipes: everything read
from it is untrusted, so every read has a deadline and a size cap, and a bad
frame ends the session (`SessionEnded`) instead of raising anything else.
"""

from __future__ import annotations

import json
import os
import select
import socket
import struct
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

ExecStatus = Literal["ok", "failed", "timeout", "error"]

FRAME_CAP = 8 << 20  # bytes of one message from a served program
WATCH_S = 0.05  # how often a session's `watch` runs while it waits


class SessionEnded(Exception):
    """The served program is gone (exited, killed, out of time) or sent something unreadable."""


@dataclass(frozen=True)
class ExecResult:
    """What happened to one program.

    `status`: "ok" (exit 0, or ended by the caller after `serve`), "failed"
    (other exit code, a signal, the memory limit), "timeout" (wall clock), or
    "error" (the sandbox could not run it; `detail` says why). `stdout` is the
    first `output_cap` bytes, `stderr` the last.
    """

    status: ExecStatus
    returncode: int | None
    stdout: str
    stderr: str
    duration_s: float
    detail: str = ""
    stdout_truncated: bool = False


@dataclass
class Session:
    """The caller's side of a served program: send a request, read a reply, both before the deadline.

    `watch`, where set, is called every WATCH_S while waiting; a reason it returns (the program's tree outgrew
    its memory) ends the session."""

    _write_fd: int
    _read_fd: int
    deadline: float
    result: ExecResult | None = None
    _ended: str | None = field(default=None)
    watch: Callable[[], str | None] | None = None

    def receive(self) -> dict:
        """The next message from the program; raises SessionEnded when there is none in time."""
        header = self._read(4)
        size = struct.unpack(">I", header)[0]
        if size > FRAME_CAP:
            self._end(f"the program sent a message of {size} bytes; the limit is {FRAME_CAP}")
        try:
            message = json.loads(self._read(size))
        except (ValueError, RecursionError):
            self._end("the program sent a message that is not JSON")
        if not isinstance(message, dict):
            self._end("the program sent a message that is not an object")
        return message

    def request(self, message: dict) -> dict:
        data = json.dumps(message).encode()
        self._write(struct.pack(">I", len(data)) + data)
        return self.receive()

    def _end(self, why: str) -> None:
        self._ended = why
        raise SessionEnded(why)

    def _read(self, n: int) -> bytes:
        chunks = []
        while n:
            if self._ended:
                raise SessionEnded(self._ended)
            if not self._ready(self._read_fd, reading=True):
                continue
            chunk = os.read(self._read_fd, min(n, 1 << 20))
            if not chunk:
                self._end("the program closed its channel")
            chunks.append(chunk)
            n -= len(chunk)
        return b"".join(chunks)

    def _write(self, data: bytes) -> None:
        while data:
            if self._ended:
                raise SessionEnded(self._ended)
            if not self._ready(self._write_fd, reading=False):
                continue
            try:
                data = data[os.write(self._write_fd, data[: 1 << 16]):]
            except BrokenPipeError:
                self._end("the program closed its channel")

    def _ready(self, fd: int, reading: bool) -> bool:
        """Whether `fd` is ready within one wait (ended on the deadline, or on what `watch` says)."""
        remaining = self.deadline - time.monotonic()
        if remaining <= 0:
            self._end("timeout")
        wait = min(remaining, WATCH_S) if self.watch is not None else remaining
        ready = select.select([fd], [], [], wait)[0] if reading else select.select([], [fd], [], wait)[1]
        if not ready and self.watch is not None and (why := self.watch()):
            self._end(why)
        return bool(ready)

    def close(self) -> None:
        for fd in (self._write_fd, self._read_fd):
            if fd >= 0:
                os.close(fd)
        self._write_fd = self._read_fd = -1
        self._ended = self._ended or "closed"


def recv_frame(sock: socket.socket, deadline: float) -> dict | None:
    """One frame from the zygote, or None when it closed its end or the deadline passed. Reads exactly that
    frame: what follows it (a run process's frame, with a descriptor) is left for its own reader."""
    buf = b""
    while len(buf) < 4 or len(buf) < 4 + struct.unpack(">I", buf[:4])[0]:
        want = 4 - len(buf) if len(buf) < 4 else 4 + struct.unpack(">I", buf[:4])[0] - len(buf)
        remaining = deadline - time.monotonic()
        try:
            if remaining <= 0 or not select.select([sock], [], [], remaining)[0]:
                return None
            chunk = sock.recv(want)
        except OSError:  # the zygote died mid-frame: treated like a closed channel
            return None
        if not chunk:
            return None
        buf += chunk
    return json.loads(buf[4:])


def send_frame(sock: socket.socket, message: dict, fds: Sequence[int] = ()) -> None:
    data = json.dumps(message).encode()
    header = struct.pack(">I", len(data))
    if fds:  # the descriptors travel with the header; the zygote reads it with recv_fds
        socket.send_fds(sock, [header], list(fds))
        sock.sendall(data)
    else:
        sock.sendall(header + data)
