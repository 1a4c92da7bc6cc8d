"""Screenshot an artifact as the Prefect UI renders it, with a headless Chromium.

Why: an artifact's markdown can be right and still render wrong (a local
image path the browser cannot load showed as a broken image). This checks
what a user sees, e.g. that the report's plot is drawn.

    source .rlvr/prefect/env       # PREFECT_API_URL of the server (make up)
    python deployments/screenshot_artifact.py tiny-arith-20261123-201646-report --out report.png

Needs `chromium` (Debian: apt install chromium).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import httpx

BROWSERS = ("chromium", "chromium-browser", "google-chrome")


def find_browser() -> str | None:
    return next((path for name in BROWSERS if (path := shutil.which(name))), None)


def latest_artifact_url(api_url: str, key: str) -> str:
    """The UI page of the newest artifact with `key` (`<ui>/artifacts/artifact/<id>`)."""
    found = httpx.post(f"{api_url}/artifacts/filter", json={"artifacts": {"key": {"any_": [key]}},
                                                            "sort": "CREATED_DESC", "limit": 1}, timeout=30)
    found.raise_for_status()
    if not found.json():
        raise SystemExit(f"no artifact with key {key!r} on {api_url}. Fix: check the key on the Artifacts page")
    return f"{api_url.removesuffix('/api')}/artifacts/artifact/{found.json()[0]['id']}"


def screenshot(url: str, out: Path, browser: str, width: int = 1400, height: int = 2600,
               page_time_s: int = 30) -> Path:
    """Render `url` headless (waiting up to `page_time_s` of page time for the UI's requests) and save a PNG.

    The browser gets a throwaway profile, no /dev/shm and none of its own
    background connections, so it starts the same where HOME is read-only,
    /dev/shm is small or the network is closed (containers, CI).
    """
    with tempfile.TemporaryDirectory(prefix="rlvr-chromium-") as profile:
        done = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                               "--no-first-run", "--no-default-browser-check", "--disable-quic",
                               "--disable-background-networking", "--disable-component-update", "--disable-sync",
                               f"--user-data-dir={profile}",
                               "--hide-scrollbars", f"--window-size={width},{height}",
                               f"--virtual-time-budget={page_time_s * 1000}", f"--screenshot={out}", url],
                              capture_output=True, text=True, timeout=120 + 2 * page_time_s)
    if done.returncode != 0 or not out.exists():
        raise RuntimeError(f"{browser} exited {done.returncode} without a screenshot of {url}: "
                           f"{done.stderr.strip()[-2000:]}")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python deployments/screenshot_artifact.py", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("key", help="artifact key, e.g. <run>-report")
    parser.add_argument("--out", type=Path, default=Path("artifact.png"), help="PNG to write (default artifact.png)")
    parser.add_argument("--api-url", default=os.environ.get("PREFECT_API_URL"),
                        help="Prefect API URL (default: $PREFECT_API_URL)")
    args = parser.parse_args(argv)
    browser = find_browser()
    if browser is None:
        print("no headless browser found. Fix: apt install chromium", file=sys.stderr)
        return 2
    if not args.api_url:
        print("no Prefect API URL. Fix: source .rlvr/prefect/env or pass --api-url", file=sys.stderr)
        return 2
    url = latest_artifact_url(args.api_url, args.key)
    print(f"{screenshot(url, args.out, browser)}: {url}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
