"""An HTTP proxy in front of a real Prefect API that can hold requests, as a stalled server does.

What it models: the server's database is locked (SQLite under load) or slow,
so every request that reads or writes it waits. The websocket on which
clients send events (`/api/events/in`) is passed through untouched once
open, as a stalled database does not stop the server taking events into its
in-memory queue. HTTP/1.1 only (Prefect's client does not use HTTP/2 unless
told to); request bodies by Content-Length or chunked.

While `stalled`, each new request waits at the proxy until `release()` or
until it has waited `hold_s`; then it is forwarded as it came.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import urlsplit


class StallingProxy:
    def __init__(self, upstream_api_url: str, hold_s: float = 60.0) -> None:
        parts = urlsplit(upstream_api_url)
        self.upstream = (parts.hostname or "127.0.0.1", parts.port or 80)
        self.path = parts.path
        self.hold_s = hold_s
        self.requests: list[tuple[float, str]] = []  # (monotonic time forwarded, "METHOD /path")
        self.held = 0  # requests that waited at the proxy
        self._stalled = threading.Event()
        self._loop = asyncio.new_event_loop()
        self._server: asyncio.AbstractServer | None = None
        self._thread = threading.Thread(target=self._loop.run_forever, name="stalling-proxy", daemon=True)

    @property
    def api_url(self) -> str:
        assert self._server is not None
        port = self._server.sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}{self.path}"

    def start(self) -> StallingProxy:
        self._thread.start()
        self._server = asyncio.run_coroutine_threadsafe(
            asyncio.start_server(self._handle, "127.0.0.1", 0), self._loop).result(10)
        return self

    def close(self) -> None:
        """Stop listening, end every open connection, stop the loop."""
        self.release()
        asyncio.run_coroutine_threadsafe(self._shutdown(), self._loop).result(30)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        self._loop.close()

    async def _shutdown(self) -> None:
        if self._server is not None:
            self._server.close()
        others = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
        for task in others:
            task.cancel()
        await asyncio.gather(*others, return_exceptions=True)

    def stall(self) -> None:
        self._stalled.set()

    def release(self) -> None:
        self._stalled.clear()

    @property
    def stalled(self) -> bool:
        return self._stalled.is_set()

    async def _gate(self) -> None:
        if not self._stalled.is_set():
            return
        self.held += 1
        deadline = time.monotonic() + self.hold_s
        while self._stalled.is_set() and time.monotonic() < deadline:
            await asyncio.sleep(0.05)

    async def _handle(self, client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter) -> None:
        try:
            upstream_reader, upstream_writer = await asyncio.open_connection(*self.upstream)
        except OSError:
            client_writer.close()
            return
        back = asyncio.ensure_future(_pipe(upstream_reader, client_writer))
        try:
            while True:
                head = await client_reader.readuntil(b"\r\n\r\n")
                request_line, headers = _parse_head(head)
                if headers.get("upgrade", "").lower() == "websocket":
                    upstream_writer.write(head)
                    await _pipe(client_reader, upstream_writer)
                    break
                body = await _read_body(client_reader, headers)
                await self._gate()
                self.requests.append((time.monotonic(), " ".join(request_line.split(" ")[:2])))
                upstream_writer.write(head + body)
                await upstream_writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.LimitOverrunError, asyncio.CancelledError):
            pass
        finally:
            upstream_writer.close()
            back.cancel()
            await asyncio.gather(back, return_exceptions=True)
            client_writer.close()


@contextmanager
def stalling_proxy(upstream_api_url: str, hold_s: float = 60.0) -> Iterator[StallingProxy]:
    proxy = StallingProxy(upstream_api_url, hold_s).start()
    try:
        yield proxy
    finally:
        proxy.close()


def _parse_head(head: bytes) -> tuple[str, dict[str, str]]:
    lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines[1:]:
        name, sep, value = line.partition(":")
        if sep:
            headers[name.strip().lower()] = value.strip()
    return lines[0], headers


async def _read_body(reader: asyncio.StreamReader, headers: dict[str, str]) -> bytes:
    if "chunked" in headers.get("transfer-encoding", "").lower():
        body = b""
        while True:
            size_line = await reader.readuntil(b"\r\n")
            chunk = await reader.readexactly(int(size_line.split(b";")[0], 16) + 2)
            body += size_line + chunk
            if size_line.split(b";")[0].strip() == b"0":
                return body  # the last chunk's CRLF ends the body (no trailers from httpx)
    length = int(headers.get("content-length", "0"))
    return await reader.readexactly(length) if length else b""


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except (ConnectionError, asyncio.CancelledError):
        pass
    finally:
        writer.close()
