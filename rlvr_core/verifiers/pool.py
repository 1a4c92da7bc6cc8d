"""Score many completions in worker processes, with a hard per-item timeout.

Why processes: a verifier can hang (a pathological sympy expression, a
program in a loop) and Python cannot interrupt a thread, and `signal.alarm`
only works in the main thread, which the training loop (a Ray actor thread)
does not own. So items run in `workers` spawned processes; when one item runs
past `timeout_s` the parent kills that worker, scores the item "timeout",
starts a fresh worker and re-queues the rest of its chunk. A worker that
died between batches is replaced the same way when it is next handed a chunk.

Why chunks: items go to workers in chunks (one pipe message each way per
chunk, plus a flush of finished results every 50 ms), because per-item IPC
would cost more than an IFEval check. The parent still knows which item a
worker is on: each worker writes (item index, start time) into a shared array
before every item, which costs no IPC.

Safe to use from any thread (no signals, spawn start method); one batch at a
time per pool (calls are serialised by a lock). A pool scores in one mode:
`strict=True` for training rewards, the default reference mode for evaluation.

Why a memory limit: the code grader evaluates tests here, on values a model's
program returned, and a test can expand one (`set(f())` over a returned
range(0, 10**12) reached 3 GB in 10 s; `'x' * f()`). Each worker runs with
RLIMIT_DATA at `memory_mb` (its heap and anonymous mappings; about 260 MB
in use once every verifier is loaded): an allocation past it raises
MemoryError inside the item, which scores 0 ("raised MemoryError" in its
test, or "error"), and the worker grades the next item. The codec refuses
the expansions it can see beforehand (`sandbox/codec.py`: a range longer
than EXPANSION_CAP fails its test as too large, without allocating); the
limit is for the rest. A worker the limit does not save (a MemoryError
outside an item) dies and is replaced like any other.
"""

from __future__ import annotations

import multiprocessing as mp
import resource
import threading
import time
from collections import deque
from collections.abc import Sequence
from multiprocessing.connection import Connection, wait
from typing import Any

from rlvr_core.problem import Problem
from rlvr_core.verifiers.base import Score, verify

_FLUSH_S = 0.05
_IDLE = -1.0
WORKER_MEMORY_MB = 2048  # RLIMIT_DATA of each worker (see the module docstring)


def _limit_memory(memory_mb: int | None) -> None:
    """Cap this process's data segment (heap and anonymous mappings) at `memory_mb`; the hard limit stays, so a
    process it starts (the sandbox's zygote) can lift the cap for itself."""
    if memory_mb is not None:
        hard = resource.getrlimit(resource.RLIMIT_DATA)[1]
        limit = memory_mb << 20
        resource.setrlimit(resource.RLIMIT_DATA, (limit if hard == resource.RLIM_INFINITY else min(limit, hard), hard))


def _worker_main(conn: Connection, progress: Any, slot: int, strict: bool, memory_mb: int | None) -> None:
    """Receive chunks [(index, completion, problem)], send back [(index, Score)] as they finish."""
    _limit_memory(memory_mb)
    while True:
        try:
            chunk = conn.recv()
        except (EOFError, OSError):
            return
        if chunk is None:
            return
        done: list[tuple[int, Score]] = []
        last_flush = time.monotonic()
        for index, completion, problem in chunk:
            progress[2 * slot] = index
            progress[2 * slot + 1] = time.monotonic()
            done.append((index, verify(completion, problem, strict)))
            if time.monotonic() - last_flush > _FLUSH_S:
                conn.send((False, done))
                done, last_flush = [], time.monotonic()
        progress[2 * slot] = _IDLE
        conn.send((True, done))


class _Worker:
    """One worker process and the chunk it is working on."""

    def __init__(self, ctx: Any, progress: Any, slot: int, strict: bool, memory_mb: int | None) -> None:
        self.slot = slot
        self.conn, child_conn = ctx.Pipe()
        self.process = ctx.Process(target=_worker_main, args=(child_conn, progress, slot, strict, memory_mb), daemon=True)
        self.process.start()
        child_conn.close()
        self.pending: set[int] = set()

    def kill(self) -> None:
        self.process.kill()
        self.process.join()
        self.conn.close()


class VerifierPool:
    """A reusable pool; use as a context manager so workers (and their sandboxes) are reaped.

    `memory_mb`: each worker's data-segment limit (None: none), see the module docstring."""

    def __init__(self, workers: int = 2, timeout_s: float = 10.0, max_chunk: int = 64, strict: bool = False,
                 memory_mb: int | None = WORKER_MEMORY_MB) -> None:
        if workers < 1:
            raise ValueError(f"VerifierPool(workers={workers}) must be >= 1")
        if timeout_s <= 0:
            raise ValueError(f"VerifierPool(timeout_s={timeout_s}) must be > 0")
        if memory_mb is not None and memory_mb < 512:
            raise ValueError(f"VerifierPool(memory_mb={memory_mb}) must be >= 512 (a worker holds about 260 MB once "
                             "every verifier is loaded) or None for no limit")
        self.workers = workers
        self.timeout_s = timeout_s
        self.max_chunk = max_chunk
        self.strict = strict
        self.memory_mb = memory_mb
        self._ctx = mp.get_context("spawn")
        self._progress = self._ctx.Array("d", [_IDLE] * (2 * workers), lock=False)
        self._pool: list[_Worker] = []
        self._lock = threading.Lock()
        self.restarts = 0

    def __enter__(self) -> "VerifierPool":
        self._ensure_started()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _ensure_started(self) -> None:
        if not self._pool:
            self._pool = [_Worker(self._ctx, self._progress, slot, self.strict, self.memory_mb)
                          for slot in range(self.workers)]

    def close(self) -> None:
        """Stop every worker; the pool can be started again by the next batch."""
        with self._lock:
            for worker in self._pool:
                try:
                    worker.conn.send(None)
                except OSError:
                    pass
            for worker in self._pool:
                worker.process.join(timeout=2)
                if worker.process.is_alive():
                    worker.kill()
            self._pool = []

    def _replace(self, worker: _Worker) -> _Worker:
        worker.kill()
        self.restarts += 1
        self._progress[2 * worker.slot] = _IDLE
        fresh = _Worker(self._ctx, self._progress, worker.slot, self.strict, self.memory_mb)
        self._pool[worker.slot] = fresh
        return fresh

    def verify_batch(self, pairs: Sequence[tuple[str, Problem]]) -> list[Score]:
        """Exactly one Score per (completion, problem), in order; never raises on model output."""
        with self._lock:
            self._ensure_started()
            return self._run(list(pairs))

    def _run(self, pairs: list[tuple[str, Problem]]) -> list[Score | None]:
        results: list[Score | None] = [None] * len(pairs)
        size = max(1, min(self.max_chunk, len(pairs) // (4 * self.workers)))
        queue: deque[list[int]] = deque(list(range(i, min(i + size, len(pairs)))) for i in range(0, len(pairs), size))
        idle = list(self._pool)
        busy: dict[Connection, _Worker] = {}
        dead_on_send = 0
        while queue or busy:
            while queue and idle:
                worker, chunk = idle.pop(), queue.popleft()
                try:
                    worker.conn.send([(i, *pairs[i]) for i in chunk])
                except OSError:  # it died while idle (OOM killer, operator): none of the chunk ran
                    dead_on_send += 1
                    if dead_on_send > self.workers:  # fresh workers die too: score, do not loop forever
                        for i in chunk:
                            results[i] = Score(0.0, "error", "verifier worker died before scoring")
                    else:
                        queue.appendleft(chunk)
                    idle.append(self._replace(worker))
                    continue
                worker.pending = set(chunk)
                busy[worker.conn] = worker
            for conn in wait(list(busy), timeout=0.02):
                worker = busy[conn]
                try:
                    finished, scores = conn.recv()
                except (EOFError, OSError):
                    self._fail_current(worker, results, queue, "error", "verifier worker died")
                    del busy[conn]
                    idle.append(self._replace(worker))
                    continue
                for index, score in scores:
                    results[index] = score
                    worker.pending.discard(index)
                if finished:
                    del busy[conn]
                    idle.append(worker)
            now = time.monotonic()
            for conn, worker in list(busy.items()):
                index, started = self._progress[2 * worker.slot], self._progress[2 * worker.slot + 1]
                if index != _IDLE and now - started > self.timeout_s and not conn.poll():
                    self._fail_current(worker, results, queue, "timeout", f"exceeded {self.timeout_s:g}s; worker killed")
                    del busy[conn]
                    idle.append(self._replace(worker))
        return results

    def _fail_current(self, worker: _Worker, results: list[Score | None], queue: deque[list[int]], status: str, detail: str) -> None:
        """Score the item the worker was on; re-queue the rest of its chunk."""
        index = int(self._progress[2 * worker.slot])
        if index in worker.pending:
            results[index] = Score(0.0, status, detail)  # type: ignore[arg-type]
            worker.pending.discard(index)
        elif status == "error":  # died between items: do not retry a chunk that may kill workers forever
            for pending in worker.pending:
                results[pending] = Score(0.0, "error", detail)
            worker.pending.clear()
        if worker.pending:
            queue.appendleft(sorted(worker.pending))
        worker.pending = set()


def verify_batch(pairs: Sequence[tuple[str, Problem]], workers: int = 2, timeout_s: float = 10.0,
                 strict: bool = False) -> list[Score]:
    """One-shot convenience: start a pool, score `pairs` (in the strict training mode if `strict`), stop it."""
    with VerifierPool(workers=workers, timeout_s=timeout_s, strict=strict) as pool:
        return pool.verify_batch(pairs)
