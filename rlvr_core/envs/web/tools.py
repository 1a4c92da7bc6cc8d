"""The two tools: `run_python` (model code in the project's sandbox, bs4, lxml and html5lib importable, the page as
`HTML`) and `navigate`.

`run_python` goes through `run_untrusted`, the only function here that
touches the sandbox API, so when the sandbox is redesigned only that
function changes. The guarantees are the sandbox's (see
`rlvr_core/sandbox/runner.py`): its own process group, rlimits, empty
environment, no network, a kill on timeout. The site-packages folders that
hold bs4, lxml and html5lib are bound read-only so the program can import
them. A `Sandbox` runs one program at a time, so this module keeps a pool of
them (`sandbox_workers()`, default min(4, CPUs)), each in a worker thread of
its own: programs of different episodes run concurrently, at most that many
at once. Tool outputs are capped at `max_output_chars` with a note saying
how much was cut.

What a program did, beyond its output: the guard (`guard.py`) runs before
the model's code and stops the program the moment it reaches for the
network, a process or native code; `run_python` reports that as status
"stopped" with what it reached for, which the verifier judges.

A sandbox that cannot run a program at all (it failed to start, refused,
or its zygote stopped answering: status "error" with no exit code, which no
program can produce) is the environment's failure, not the program's: the
sandbox is replaced and the program run again, up to `START_ATTEMPTS`
times; after that `run_python` returns status "error" and the environment
ends the episode as an error (never a wrong answer). The time a program
spends waiting for a free sandbox is not its own: `Run.duration_s` is the
program's run time as the sandbox measured it, what the episode's tool-time
budget counts.

`navigate` serves pages of the generated site only: a link is resolved
against the current page, the query string and fragment are ignored for the
lookup, and anything off the site, missing or unparsable is an error
message, never an exception. `requested_path` is the normalised path a
target names (percent-decoding, backslashes, repeated slashes and dot
segments undone, lower case), whatever the host and whether or not the page
exists: what the safety check compares with the paths an injected
instruction asked to open; `requested_host` is the host it names, in the
form the safety check compares with the hosts an instruction named.
"""

from __future__ import annotations

import logging
import os
import posixpath
import queue
import re
import threading
import unicodedata
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urljoin, urlsplit

from rlvr_core.envs.web import guard

log = logging.getLogger(__name__)
START_ATTEMPTS = 3  # runs of one program on a fresh sandbox each, when the sandbox cannot run it

_TITLE = re.compile(r"<title>(.*?)</title>", re.DOTALL | re.IGNORECASE)
_SLASHES = re.compile(r"/{2,}")
_DOTS = str.maketrans({"\u3002": ".", "\uff0e": ".", "\uff61": "."})  # ideographic and full-width full stops


def sandbox_workers() -> int:
    """How many sandboxes run programs at once: RLVR_WEBEXTRACT_SANDBOXES, else min(4, CPUs)."""
    setting = os.environ.get("RLVR_WEBEXTRACT_SANDBOXES", "")
    if setting:
        if not setting.isdigit() or int(setting) < 1:
            raise ValueError(f"RLVR_WEBEXTRACT_SANDBOXES={setting!r} must be a positive integer")
        return int(setting)
    return max(1, min(4, os.cpu_count() or 1))


class SandboxBroken(RuntimeError):
    """The sandbox a job was given cannot run programs; the pool replaces it."""


class SandboxPool:
    """Up to `size` sandboxes, each owned by a worker thread that lives as long as the process.

    `submit(job)` runs `job(sandbox)` on a free worker (starting one, up to `size`) and returns its result.
    Every start and restart of a sandbox's zygote happens in its worker thread: bubblewrap's
    --die-with-parent kills the zygote when the *thread* that started it exits, so a zygote started from a
    short-lived thread (a step of `run_episodes`) would die under the next program. A sandbox that fails to
    be made, or a job that raises `SandboxBroken`, leaves the worker without one: the next job makes a new one.
    """

    def __init__(self, size: int, make: Callable[[], Any]) -> None:
        self.size, self._make = size, make
        self._jobs: queue.SimpleQueue[tuple[Callable[[Any], Any], Future]] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._workers = self._idle = self._running = 0
        self.peak = 0  # the most jobs running at once

    def submit(self, job: Callable[[Any], Any]) -> Any:
        done: Future = Future()
        with self._lock:
            if self._idle == 0 and self._workers < self.size:
                self._workers += 1
                threading.Thread(target=self._serve, name=f"sandbox-{self._workers}", daemon=True).start()
            self._idle -= 1 if self._idle else 0
        self._jobs.put((job, done))
        return done.result()

    def _serve(self) -> None:
        box: Any = None
        while True:
            job, done = self._jobs.get()
            with self._lock:
                self._running += 1
                self.peak = max(self.peak, self._running)
            try:
                if box is None:
                    box = self._make()
                done.set_result(job(box))
            except SandboxBroken as exc:
                box = _discard(box)
                done.set_exception(exc)
            except BaseException as exc:  # noqa: BLE001 - handed to the caller
                done.set_exception(exc)
            finally:
                with self._lock:
                    self._running -= 1
                    self._idle += 1


def _discard(box: Any) -> None:
    """Close a sandbox that cannot run programs (its zygote, uid and cgroup go with it)."""
    close = getattr(box, "close", None)
    if close is not None:
        try:
            close()
        except Exception:  # noqa: BLE001 - a broken sandbox may fail to close too; it is dropped either way
            log.exception("run_python: closing a broken sandbox failed")
    return None


_POOL: tuple[int, SandboxPool] | None = None
_POOL_LOCK = threading.Lock()


def _library_paths() -> list[str]:
    import bs4
    import html5lib
    import lxml

    return sorted({os.path.dirname(os.path.dirname(m.__file__)) for m in (bs4, lxml, html5lib)})


def _new_sandbox() -> Any:
    from rlvr_core.sandbox.runner import Sandbox

    return Sandbox(extra_paths=_library_paths(), output_cap=16384)


def sandbox_pool() -> SandboxPool:
    """This process's pool (a forked child gets its own)."""
    global _POOL
    with _POOL_LOCK:
        if _POOL is None or _POOL[0] != os.getpid():
            _POOL = (os.getpid(), SandboxPool(sandbox_workers(), _new_sandbox))
        return _POOL[1]


@dataclass(frozen=True)
class Outcome:
    """What happened to one program: status "ok", "failed", "timeout" or "error" (could not run), its exit code
    (None when it did not run to one), and its own run time."""

    status: str
    stdout: str
    stderr: str
    detail: str
    returncode: int | None = None
    duration_s: float = 0.0


def run_untrusted(program: str, *, timeout_s: float, memory_mb: int, pool: SandboxPool | None = None) -> Outcome:
    """Run `program` contained, with bs4, lxml and html5lib importable. The one adapter over the sandbox's API;
    never raises. A sandbox that cannot run it (see the module docstring) is replaced and the run tried again,
    `START_ATTEMPTS` times in all; then the outcome is "error"."""
    pool = pool or sandbox_pool()

    def job(box: Any) -> Outcome:
        result = box.run(program, timeout_s=timeout_s, memory_mb=memory_mb)
        if result.status == "error" and result.returncode is None:
            raise SandboxBroken(result.detail or "the sandbox gave no result")
        return Outcome(result.status, result.stdout, result.stderr, result.detail, result.returncode,
                       float(result.duration_s))

    why = ""
    for attempt in range(START_ATTEMPTS):
        try:
            return pool.submit(job)
        except Exception as exc:  # noqa: BLE001 - a tool never crashes the episode
            why = f"{type(exc).__name__}: {exc}"
            log.warning("run_python: the sandbox could not run the program (attempt %d of %d): %s", attempt + 1,
                        START_ATTEMPTS, why)
    return Outcome("error", "", "", f"the sandbox could not run the program in {START_ATTEMPTS} attempts ({why})")


def cap(text: str, limit: int) -> str:
    """`text` cut to `limit` characters, with a note of what was left out."""
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n[... {len(text) - limit} more characters cut; print less, e.g. a slice or a summary]"


def _program(code: str, html: str, url: str) -> str:
    """The guard, then the model's code under `<run_python>` (tracebacks show its own line numbers), with HTML and
    PAGE_URL set."""
    return (guard.PRELUDE + f"HTML = {html!r}\nPAGE_URL = {url!r}\n"
            "with open('page.html', 'w', encoding='utf-8') as _f:\n    _f.write(HTML)\n"
            f"_code = {code!r}\n"
            "exec(compile(_code, '<run_python>', 'exec'), {'__name__': '__main__', 'HTML': HTML, 'PAGE_URL': PAGE_URL})\n")


def _clean_traceback(stderr: str) -> str:
    """Drop the wrapper's own frames so the model sees only its code's."""
    return "\n".join(line for line in stderr.splitlines()
                     if not line.startswith(('  File "<string>"', '  File "<program>"')))


@dataclass(frozen=True)
class Run:
    """One `run_python` call as the tool reports it: the output text for the model, the status ("ok", "failed",
    "timeout", "stopped" by the guard, or "error": the sandbox could not run it), what the guard stopped it
    reaching for, and the program's own run time."""

    output: str
    status: str
    reached: str = ""
    duration_s: float = 0.0


def run_python(code: str, html: str, url: str, *, timeout_s: float, memory_mb: int, max_output_chars: int,
               pool: SandboxPool | None = None) -> Run:
    """Run one `run_python` call; never raises."""
    outcome = run_untrusted(_program(code, html, url), timeout_s=timeout_s, memory_mb=memory_mb, pool=pool)
    if outcome.status == "error":
        return Run(f"run_python could not run the program: {outcome.detail[:500]}", "error")
    parts = [outcome.stdout.rstrip("\n")] if outcome.stdout.strip() else []
    status, reached = outcome.status, ""
    if guard.stopped(outcome.returncode):
        status, reached = "stopped", guard.reached_for(outcome.stderr) or "an unnamed operation"
        parts.append(f"[stopped: the program reached for {reached[:300]}; run_python has no network access, no "
                     "processes and no native code. HTML holds the page.]")
    elif outcome.status == "timeout":
        parts.append(f"[stopped: the program ran past the {timeout_s:g} s time limit]")
    elif outcome.status == "failed":
        err = _clean_traceback(guard.without_lines(outcome.stderr)).strip()
        parts.append(err[-1500:] if err else f"[the program failed: {outcome.detail}]")
    if not parts:
        return Run("(no output: print what you want to see)", status, reached, outcome.duration_s)
    return Run(cap("\n".join(parts), max_output_chars), status, reached, outcome.duration_s)


def page_title(html: str) -> str:
    match = _TITLE.search(html)
    return " ".join(match.group(1).split()) if match else ""


def _absolute(site: dict[str, Any], current: str, target: str) -> Any:
    """The SplitResult of `target` resolved against the current page; ValueError for an unparsable URL."""
    return urlsplit(urljoin(site["base_url"] + current, target.strip()))


def resolve(site: dict[str, Any], current: str, target: str) -> tuple[str | None, str]:
    """(path of the page `target` names from `current`, "") or (None, why it cannot be opened)."""
    try:
        base, absolute = urlsplit(site["base_url"]), _absolute(site, current, target)
    except ValueError as err:
        return None, f"navigate: {target[:200]!r} is not a valid URL ({err}); use an href from the page."
    if absolute.scheme not in ("http", "https") or absolute.netloc != base.netloc:
        return None, (f"navigate: {target[:200]!r} is not on this site ({site['base_url']}); only its own pages can "
                      "be opened (there is no internet access).")
    path = absolute.path or "/"
    for candidate in (path, path.rstrip("/") + "/index.html"):
        if candidate in site["pages"]:
            return candidate, ""
    return None, f"navigate: 404, there is no page {path[:200]!r} on this site. Open links that appear in HTML."


def normalise_path(path: str) -> str:
    """A URL path as a server would route it: percent-decoded (repeatedly), backslashes as slashes, repeated
    slashes collapsed, dot segments removed, path parameters (;x) dropped, no trailing slash, lower case."""
    for _ in range(3):
        decoded = unquote(path)
        if decoded == path:
            break
        path = decoded
    path = _SLASHES.sub("/", "/" + path.replace("\\", "/").split(";", 1)[0])
    path = posixpath.normpath(path)
    return ("/" + path.lstrip("/")).rstrip("/").casefold() or "/"


def requested_path(site: dict[str, Any], current: str, target: str) -> str:
    """The normalised path `target` names from `current` (any host), or the normalised raw target if unparsable."""
    try:
        return normalise_path(_absolute(site, current, target.replace("\\", "/")).path or "/")
    except ValueError:
        return normalise_path(target.split("?", 1)[0].split("#", 1)[0])


def normalise_host(host: str) -> str:
    """A host name as a resolver would read it: percent-decoded, NFKC (full-width letters), ideographic and
    full-width dots as dots, lower case, without a trailing dot, internationalised names in their ASCII form."""
    host = unicodedata.normalize("NFKC", unquote(host).translate(_DOTS)).casefold().strip().rstrip(".")
    try:
        return host.encode("idna").decode("ascii")
    except UnicodeError:
        return host


def requested_host(site: dict[str, Any], current: str, target: str) -> str:
    """The normalised host `target` names from `current` (the site's own for a relative link), "" if unparsable."""
    try:
        return normalise_host(_absolute(site, current, target.replace("\\", "/")).hostname or "")
    except ValueError:
        return ""
