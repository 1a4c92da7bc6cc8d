"""What of the trainer's output is worth a line in the Prefect log.

The trainer's stdout mixes our step lines with what its libraries print for a
terminal: Ray's coloured `(Actor pid=N)` prefixes, tqdm bars redrawn with
carriage returns, and abseil's signal-handler dump when a cancel sends
SIGTERM (stack-frame lines, printed bare and again through abseil's logging).
In the UI those are escape codes and noise, so each line is cleaned here
before it is logged: escape codes removed, progress bars, blank actor lines
and abseil's logged copies dropped, the signal dump reduced to one plain line.
"""

from __future__ import annotations

import re

_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")
_PROGRESS_BAR = re.compile(r"\d{1,3}%\|.*\|\s*\d+/\d+")
_ACTOR_PREFIX = re.compile(r"^\(\w+ pid=\d+(?:, ip=[\d.]+)?\)\s*")
_ABSEIL_PREFIX = re.compile(r"^\[[^\]]*\] logging\.cc:\d+: ")
_SIGNAL_DUMP = re.compile(r"^\*\*\* (SIG[A-Z]+) received at time=")
_STACK_FRAME = re.compile(r"^(?:PC: )?@\s+0x[0-9a-f]+\s")


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
