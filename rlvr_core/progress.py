"""Progress a person can see: a bar in a terminal, a log line every few seconds everywhere.

Why both: a tqdm bar is for someone watching a terminal, while Prefect's UI
shows log records (the `rlvr_core` loggers are attached to it through
`PREFECT_LOGGING_EXTRA_LOGGERS`), not stderr. A bar redrawn in place would
flood a log with carriage returns, so the bar is drawn only on a TTY, and log
lines are rate-limited by time: a long loop is never silent for more than
`every_s` seconds, and a fast one does not flood the log.
"""

from __future__ import annotations

import logging
import sys
import time
from typing import Any


class Progress:
    """Count work done towards `total`; show it as a bar (TTY only) and as periodic log lines."""

    def __init__(self, total: int, desc: str, logger: logging.Logger, *, unit: str = "step", initial: int = 0,
                 every_s: float = 5.0, bar: bool | None = None, eta: bool = True) -> None:
        """`bar=None` draws a bar only on a TTY, False never; `eta=False` where `total` is only a cap
        (a loop that usually stops early on a condition); `initial` counts work done before (a resume)."""
        self.total = total
        self._eta = eta
        self.desc = desc
        self.unit = unit
        self.done = initial
        self._initial = initial
        self._log = logger
        self._every_s = every_s
        self._started = time.monotonic()
        self._last_log = self._started
        self._postfix: dict[str, Any] = {}
        show_bar = sys.stderr.isatty() if bar is None else bar
        self._bar = None
        if show_bar:
            from tqdm import tqdm

            self._bar = tqdm(total=total, initial=initial, desc=desc, unit=unit, file=sys.stderr, dynamic_ncols=True,
                             leave=False)

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def update(self, n: int = 1, **postfix: Any) -> None:
        """Advance by `n`; `postfix` values (e.g. accuracy=0.12) are shown beside the count until replaced."""
        self.done += n
        self._postfix.update(postfix)
        if self._bar is not None:
            self._bar.update(n)
            if postfix:
                self._bar.set_postfix(self._postfix, refresh=False)
        now = time.monotonic()
        if now - self._last_log >= self._every_s:
            self._last_log = now
            self._log.info("%s", self.line())

    def line(self) -> str:
        """`desc: done/total unit (pct%), k=v, elapsed Ns, eta Ms` -- what the periodic log says."""
        elapsed = time.monotonic() - self._started
        parts = [f"{self.desc}: {self.done}/{self.total} {self.unit}"]
        if self.total:
            parts[0] += f" ({100 * self.done / self.total:.0f}%)"
        parts += [f"{key}={_fmt(value)}" for key, value in self._postfix.items()]
        parts.append(f"elapsed {elapsed:.0f} s")
        fresh = self.done - self._initial
        if self._eta and fresh > 0 and self.done < self.total:
            parts.append(f"eta {elapsed / fresh * (self.total - self.done):.0f} s")
        return ", ".join(parts)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None


def _fmt(value: Any) -> str:
    return f"{value:.3g}" if isinstance(value, float) else str(value)
