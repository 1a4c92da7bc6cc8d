"""Running `rlvr config validate` in-process and checking that it answered the way every config answers.

An answer is: exit 0 with the resolved config on stdout and one `OK:` line
on stderr; or exit 2, nothing on stdout, and one line per problem on stderr,
each `<where>: <what>. Fix: <how>`, no traceback, at most 20 lines, within
`SECONDS` of this thread's CPU time: a bound that catches blowups (an alias
bomb, a quadratic scan), which cost far more, not a speed target, and CPU
time so that a busy machine cannot fail it. A hang guard turns a blocking
read (a FIFO opened without O_NONBLOCK, say), which costs no CPU, into a
failure instead of a stuck test run.
"""

from __future__ import annotations

import io
import re
import signal
import time
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from dataclasses import dataclass
from typing import Iterator

from rlvr_core.config.__main__ import main as config_cli

PROBLEM_LINE = re.compile(r"^\S[^\n]*: [^\n]+\. Fix: [^\n]+$")
SECONDS = 5.0
HANG_S = 120


@dataclass
class Answer:
    code: int
    out: str
    err: str
    seconds: float

    @property
    def lines(self) -> list[str]:
        return self.err.splitlines()

    def check(self) -> None:
        """Fail unless this is a well-formed answer (see the module docstring)."""
        assert self.seconds < SECONDS, f"took {self.seconds:.2f} CPU s: {self.err[:300]}"
        assert "Traceback" not in self.err, self.err
        if self.code == 0:
            assert self.err.startswith("OK: ") and self.err.count("\n") == 1, self.err
            return
        assert self.code == 2, (self.code, self.err)
        assert self.out == "", self.out[:300]
        assert 1 <= len(self.lines) <= 20, self.err[:2000]
        for line in self.lines:
            assert len(line) <= 1000 and PROBLEM_LINE.match(line), line[:1000]


class Hang(Exception):
    pass


@contextmanager
def hang_guard(seconds: float) -> Iterator[None]:
    """Raise Hang in the main thread after `seconds` (tests only; the code under test never uses signals)."""
    def on_alarm(signum: int, frame: object) -> None:
        raise Hang(f"no answer within {seconds} s")

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def validate(*args: str) -> Answer:
    """`rlvr config validate --quiet ARGS...` in this process."""
    out, err = io.StringIO(), io.StringIO()
    started = time.thread_time()
    with redirect_stdout(out), redirect_stderr(err), hang_guard(HANG_S):
        try:
            code = config_cli(["validate", "--quiet", *args])
        except SystemExit as exit_:  # argparse usage errors
            code = exit_.code if isinstance(exit_.code, int) else 2
    return Answer(code, out.getvalue(), err.getvalue(), time.thread_time() - started)
