"""Wall time per named phase, for reports of where a run's time went (the demo, the overhead benchmark)."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator


@contextlib.contextmanager
def timed(seconds: dict[str, float], phase: str) -> Iterator[None]:
    """Add the block's wall time to `seconds[phase]`, also when it raises (a phase entered twice adds up)."""
    started = time.perf_counter()
    try:
        yield
    finally:
        seconds[phase] = seconds.get(phase, 0.0) + time.perf_counter() - started
