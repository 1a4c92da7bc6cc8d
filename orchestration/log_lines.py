"""What of the trainer's output is worth a line in the Prefect log.

The trainer's stdout mixes our step lines with what its libraries print for a
terminal: Ray's coloured `(Actor pid=N)` prefixes, tqdm bars redrawn with
carriage returns, and abseil's signal-handler dump when a cancel sends
SIGTERM (stack-frame lines, printed bare and again through abseil's logging).
In the UI those are escape codes and noise, so each line is cleaned here
before it is logged: escape codes removed, progress bars, blank actor lines
and abseil's logged copies dropped, the signal dump reduced to one plain line.

The trainer prints a line per step; on the tiny demo that is six a second.
Each is a Prefect log record: formatted for the console, shipped by a
background thread, inserted by the server, on the cores training runs on.
`StepLines` lets a step line through at most every `min_interval_s` (and
always the first and last step and every step with a held-out accuracy);
every step stays in the run folder's `traces/trace.jsonl`, and the live
training table shows the run's course. A line per step costs the flow
process and the server CPU time that a short run on a small machine feels.
"""

from __future__ import annotations

import re
import time

_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")
_PROGRESS_BAR = re.compile(r"\d{1,3}%\|.*\|\s*\d+/\d+")
_ACTOR_PREFIX = re.compile(r"^\(\w+ pid=\d+(?:, ip=[\d.]+)?\)\s*")
_ABSEIL_PREFIX = re.compile(r"^\[[^\]]*\] logging\.cc:\d+: ")
_SIGNAL_DUMP = re.compile(r"^\*\*\* (SIG[A-Z]+) received at time=")
_STACK_FRAME = re.compile(r"^(?:PC: )?@\s+0x[0-9a-f]+\s")
_STEP_LINE = re.compile(r"^step (\d+)/(\d+) ")


def clean_line(raw: str) -> str | None:
    """The line as it should be logged, or None to drop it."""
    line = _ANSI.sub("", raw.rsplit("\r", 1)[-1]).rstrip()
    if _ABSEIL_PREFIX.match(line):
        return None  # abseil's copy, through the logging library, of a dump already printed bare
    body = _ACTOR_PREFIX.sub("", line).strip()
    if not body or _PROGRESS_BAR.search(body) or _STACK_FRAME.match(body):
        return None
    signal = _SIGNAL_DUMP.match(body)
    if signal:
        return f"trainer process received {signal.group(1)} (stopped from outside)"
    return line


class StepLines:
    """Which of the trainer's step lines go to the Prefect log; every other line always does."""

    def __init__(self, min_interval_s: float = 5.0) -> None:
        self.min_interval_s = min_interval_s
        self._logged_at: float | None = None

    def keep(self, line: str, now: float | None = None) -> bool:
        step = _STEP_LINE.match(line)
        if step is None:
            return True
        now = time.monotonic() if now is None else now
        due = self._logged_at is None or now - self._logged_at >= self.min_interval_s
        if due or step.group(1) == step.group(2) or " heldout " in line:
            self._logged_at = now
            return True
        return False
