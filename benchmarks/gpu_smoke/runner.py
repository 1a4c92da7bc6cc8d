"""Runs the smoke test's phases in order, each timed and time-limited, and records each one as it finishes.

Budget: the whole run has `budget_s`. A phase starts only while at least `MIN_PHASE_S` of it remain, and runs
under min(its own limit, what remains). A phase whose prerequisite (`Phase.needs`) did not pass, or that this
machine cannot run (`Phase.unavailable`: vLLM not installed), is `skipped` with the reason.

Two limits, because a phase can be stuck in two ways:
- soft: SIGALRM in the main thread raises `PhaseTimeout` at the next Python bytecode. It derives from
  BaseException, so the project's `except Exception` blocks do not swallow it. The phase is recorded
  `timeout` and the run goes on with the phases that do not need it.
- hard: a phase stuck in native code (a CUDA synchronisation, a deadlock) never returns to Python, so the
  signal handler never runs. A watchdog thread then records the phase `timeout`, prints the summary and ends
  the process with status `HARD_TIMEOUT_STATUS`, `HARD_GRACE_S` after the soft limit.

The results file is replaced atomically before each phase (status `running`) and after it, so a run cut short
(by the budget, a crash, or the machine being taken back) still says what passed, what was running and
what never started.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from rlvr_core.rundir.atomic import write_json_atomic

MIN_PHASE_S = 10.0
HARD_GRACE_S = 30.0
HARD_TIMEOUT_STATUS = 124
PASSED, FAILED, TIMED_OUT, SKIPPED, RUNNING = "ok", "FAIL", "timeout", "skipped", "running"


class PhaseTimeout(BaseException):
    """Raised in the main thread when a phase runs past its limit."""


class CheckFailed(Exception):
    """A phase ran and its check did not hold; `figures` keeps what it measured."""

    def __init__(self, message: str, figures: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.figures = figures or {}


@dataclass(frozen=True)
class Outcome:
    """What a passing phase reports: one line for the table, and its measurements."""

    summary: str
    figures: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Phase:
    name: str
    proves: str                                   # one line: what passing this phase shows
    run: Callable[[Any], Outcome]                 # the shared context -> Outcome; raises CheckFailed
    limit_s: float                                # its own time limit
    needs: tuple[str, ...] = ()                   # phases that must have passed first
    unavailable: Callable[[Any], str | None] = lambda ctx: None  # why this machine cannot run it, or None


@dataclass
class PhaseResult:
    name: str
    proves: str
    status: str
    seconds: float = 0.0
    limit_s: float = 0.0
    summary: str = ""
    figures: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    traceback: str | None = None


class ResultsFile:
    """`results.json`: the run's settings, one record per phase, and whether the run finished."""

    def __init__(self, path: Path, header: dict[str, Any]) -> None:
        self.path, self.header = path, header
        self.results: list[PhaseResult] = []
        self.lock = threading.Lock()  # the watchdog writes from its own thread

    def write(self, *, exit_status: int | None = None) -> None:
        with self.lock:
            write_json_atomic(self.path, {**self.header, "finished": exit_status is not None,
                                          "exit_status": exit_status,
                                          "phases": [asdict(r) for r in self.results]}, sort_keys=False)


def exit_status(results: Sequence[PhaseResult]) -> int:
    """0 when every phase that ran passed (skipped phases did not run), else 1."""
    return 1 if any(r.status in (FAILED, TIMED_OUT) for r in results) else 0


def summary_table(results: Sequence[PhaseResult], width: int = 100) -> str:
    """One line per phase: status, seconds, and its summary or error (cut to `width` characters)."""
    rows = ["| phase | status | s | result |", "|---|---|---:|---|"]
    for r in results:
        text = (r.error if r.status in (FAILED, TIMED_OUT) else r.summary) or ""
        text = " ".join(text.split())
        rows.append(f"| {r.name} | {r.status} | {r.seconds:.1f} | {text[:width]}{'...' if len(text) > width else ''} |")
    return "\n".join(rows)


def run_phases(phases: Sequence[Phase], ctx: Any, record: ResultsFile, budget_s: float, *,
               clock: Callable[[], float] = time.monotonic,
               report: Callable[[PhaseResult], None] = lambda result: None) -> list[PhaseResult]:
    """Run `phases` in order under `budget_s` (see the module docstring); `report` sees each result as it lands."""
    deadline = clock() + budget_s
    results: dict[str, PhaseResult] = {}
    for phase in phases:
        remaining = deadline - clock()
        reason = _reason_to_skip(phase, ctx, results, remaining, budget_s)
        result = PhaseResult(phase.name, phase.proves, SKIPPED if reason else RUNNING,
                             limit_s=min(phase.limit_s, max(remaining, 0)), summary=reason or "")
        record.results.append(result)
        results[phase.name] = result
        record.write()
        if reason is None:
            _run_one(phase, ctx, result, record, clock)
            record.write()
        report(result)
    return list(results.values())


def _reason_to_skip(phase: Phase, ctx: Any, results: dict[str, PhaseResult], remaining: float,
                    budget_s: float) -> str | None:
    """Why `phase` does not run now, or None: a prerequisite that did not pass, a machine that cannot run it,
    or too little budget left."""
    failed = [n for n in phase.needs if n in results and results[n].status != PASSED]
    if failed:
        return "needs " + ", ".join(f"{n} ({results[n].status})" for n in failed)
    if (reason := phase.unavailable(ctx)) is not None:
        return reason
    if remaining < MIN_PHASE_S:
        return f"budget spent ({max(remaining, 0):.0f} s left of {budget_s:.0f} s)"
    return None


def _run_one(phase: Phase, ctx: Any, result: PhaseResult, record: ResultsFile, clock: Callable[[], float]) -> None:
    """Run one phase into `result` under its soft and hard limits."""
    started = clock()
    watchdog = threading.Timer(result.limit_s + HARD_GRACE_S, _hard_timeout, (result, record))
    watchdog.daemon = True
    watchdog.start()
    soft = threading.current_thread() is threading.main_thread()
    if soft:
        previous = signal.signal(signal.SIGALRM, _raise_timeout)
        signal.setitimer(signal.ITIMER_REAL, result.limit_s)
    try:
        outcome = phase.run(ctx)
        result.status, result.summary, result.figures = PASSED, outcome.summary, outcome.figures
    except PhaseTimeout:
        result.status, result.error = TIMED_OUT, f"still running after its limit of {result.limit_s:.0f} s"
    except Exception as err:  # noqa: BLE001 - every failure becomes the phase's record, with its cause
        result.status, result.error = FAILED, f"{type(err).__name__}: {err}"
        result.figures = getattr(err, "figures", {})
        result.traceback = "".join(traceback.format_exc(limit=-8))
        traceback.print_exc(file=sys.stderr)
    finally:
        if soft:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
        watchdog.cancel()
        result.seconds = round(clock() - started, 3)


def _raise_timeout(signum: int, frame: Any) -> None:
    raise PhaseTimeout


def _hard_timeout(result: PhaseResult, record: ResultsFile) -> None:
    """The phase never came back to Python: record it, show what ran, and end the process."""
    result.status = TIMED_OUT
    result.error = (f"did not return within {HARD_GRACE_S:.0f} s after its limit of {result.limit_s:.0f} s "
                    "(stuck outside Python: a CUDA call or a deadlock); the run was ended here")
    result.seconds = result.limit_s + HARD_GRACE_S
    record.write(exit_status=HARD_TIMEOUT_STATUS)
    print(summary_table(record.results), flush=True)
    os._exit(HARD_TIMEOUT_STATUS)
