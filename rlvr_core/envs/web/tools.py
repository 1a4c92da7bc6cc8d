"""The two tools: `run_python` (model code in the project's sandbox, bs4 importable, the page as `HTML`) and `navigate`.

`run_python` goes through `run_untrusted`, the only function here that
touches the sandbox API, so when the sandbox is redesigned only that function
changes. The guarantees are the sandbox's (see `rlvr_core/sandbox/runner.py`):
its own process group, rlimits, empty environment, no network, a kill on
timeout. The site-packages folder that holds bs4 is bound read-only so the
program can import it. Tool outputs are capped at `max_output_chars` with a
note saying how much was cut.

`navigate` serves pages of the generated site only: a link is resolved
against the current page, the query string and fragment are ignored for the
lookup, and anything off the site or missing is an error message, never an
exception.
"""

from __future__ import annotations

import logging
import os
import re
import threading
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin, urlsplit

log = logging.getLogger(__name__)

_SANDBOX: Any = None
_SANDBOX_LOCK = threading.Lock()
_TITLE = re.compile(r"<title>(.*?)</title>", re.DOTALL | re.IGNORECASE)


@dataclass(frozen=True)
class Outcome:
    """What happened to one program: status "ok", "failed", "timeout" or "error" (could not run)."""

    status: str
    stdout: str
    stderr: str
    detail: str


def run_untrusted(program: str, *, timeout_s: float, memory_mb: int) -> Outcome:
    """Run `program` contained, with bs4 importable. The one adapter over the sandbox's API; never raises."""
    global _SANDBOX
    try:
        from rlvr_core.sandbox.runner import Sandbox

        with _SANDBOX_LOCK:
            if _SANDBOX is None or _SANDBOX[0] != os.getpid():
                import bs4

                _SANDBOX = (os.getpid(), Sandbox(extra_paths=[os.path.dirname(os.path.dirname(bs4.__file__))],
                                                 output_cap=16384))
        result = _SANDBOX[1].run(program, timeout_s=timeout_s, memory_mb=memory_mb)
        return Outcome(result.status, result.stdout, result.stderr, result.detail)
    except Exception as exc:  # noqa: BLE001 - a tool never crashes the episode
        log.exception("run_python: the sandbox failed")
        return Outcome("error", "", "", f"{type(exc).__name__}: {exc}")


def cap(text: str, limit: int) -> str:
    """`text` cut to `limit` characters, with a note of what was left out."""
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n[... {len(text) - limit} more characters cut; print less, e.g. a slice or a summary]"


def _program(code: str, html: str, url: str) -> str:
    """The model's code under `<run_python>` (tracebacks show its own line numbers), with HTML and PAGE_URL set."""
    return (f"HTML = {html!r}\nPAGE_URL = {url!r}\n"
            "with open('page.html', 'w', encoding='utf-8') as _f:\n    _f.write(HTML)\n"
            f"_code = {code!r}\n"
            "exec(compile(_code, '<run_python>', 'exec'), {'__name__': '__main__', 'HTML': HTML, 'PAGE_URL': PAGE_URL})\n")


def _clean_traceback(stderr: str) -> str:
    """Drop the wrapper's own frames so the model sees only its code's."""
    return "\n".join(line for line in stderr.splitlines()
                     if not line.startswith(('  File "<string>"', '  File "<program>"')))


def run_python(code: str, html: str, url: str, *, timeout_s: float, memory_mb: int, max_output_chars: int) -> str:
    """The tool's output text for one `run_python` call."""
    outcome = run_untrusted(_program(code, html, url), timeout_s=timeout_s, memory_mb=memory_mb)
    if outcome.status == "error":
        return f"run_python could not run the program: {outcome.detail[:500]}"
    parts = [outcome.stdout.rstrip("\n")] if outcome.stdout.strip() else []
    if outcome.status == "timeout":
        parts.append(f"[stopped: the program ran past the {timeout_s:g} s time limit]")
    elif outcome.status == "failed":
        err = _clean_traceback(outcome.stderr).strip()
        parts.append(err[-1500:] if err else f"[the program failed: {outcome.detail}]")
    if not parts:
        return "(no output: print what you want to see)"
    return cap("\n".join(parts), max_output_chars)


def page_title(html: str) -> str:
    match = _TITLE.search(html)
    return " ".join(match.group(1).split()) if match else ""


def resolve(site: dict[str, Any], current: str, target: str) -> tuple[str | None, str]:
    """(path of the page `target` names from `current`, "") or (None, why it cannot be opened)."""
    base = urlsplit(site["base_url"])
    absolute = urlsplit(urljoin(site["base_url"] + current, target.strip()))
    if absolute.scheme not in ("http", "https") or absolute.netloc != base.netloc:
        return None, (f"navigate: {target!r} is not on this site ({site['base_url']}); only its own pages can be "
                      "opened (there is no internet access).")
    path = absolute.path or "/"
    for candidate in (path, path.rstrip("/") + "/index.html"):
        if candidate in site["pages"]:
            return candidate, ""
    return None, f"navigate: 404, there is no page {path!r} on this site. Open links that appear in HTML."


def forbidden_target(site: dict[str, Any], current: str, target: str) -> str:
    """The path a navigate call points to, resolved like `resolve` does, whether or not the page exists."""
    return urlsplit(urljoin(site["base_url"] + current, target.strip())).path or "/"
