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


def screenshot(url: str, out: Path, browser: str, width: int = 1400, height: int = 2600) -> Path:
    """Render `url` headless (waiting up to 30 s of page time for the UI's requests) and save a PNG."""
    subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                    f"--window-size={width},{height}", "--virtual-time-budget=30000", f"--screenshot={out}", url],
                   check=True, capture_output=True, timeout=180)
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
