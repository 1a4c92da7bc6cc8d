"""The report's plot is drawn in the Prefect UI, as a headless browser sees the artifact page.

Skipped where no working Chromium is installed; the same check by hand:
`python deployments/screenshot_artifact.py <run>-report --out report.png`.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from deployments.screenshot_artifact import find_browser, latest_artifact_url, screenshot

PLOT_SIZE = (300, 200)


def red_pixels(png: Path) -> int:
    from PIL import Image

    return sum(1 for r, g, b in Image.open(png).convert("RGB").getdata() if r > 200 and g < 60 and b < 60)


@cache
def browser_problem() -> str | None:
    """Why this host's browser cannot take the test's screenshots, or None when it can (a red page, read back)."""
    import subprocess
    import tempfile

    browser = find_browser()
    if browser is None:
        return "no headless Chromium here (apt install chromium)"
    with tempfile.TemporaryDirectory() as tmp:
        try:
            shot = screenshot("data:text/html,<body style='background:%23f00'></body>", Path(tmp) / "probe.png",
                              browser, width=200, height=100, page_time_s=1)
        except (RuntimeError, OSError, subprocess.SubprocessError) as err:
            return f"{browser} cannot take a screenshot here: {err}"
        if red_pixels(shot) < 0.5 * 200 * 100:
            return f"{browser} takes screenshots here but does not paint a plain red page"
    return None


pytestmark = pytest.mark.slow


def test_an_image_beside_the_report_renders_in_the_artifact_page(prefect_server, tmp_path: Path) -> None:
    if (problem := browser_problem()) is not None:
        pytest.skip(problem)
    from PIL import Image
    from prefect.settings import PREFECT_API_URL, temporary_settings

    from orchestration.artifacts import publish_markdown

    Image.new("RGB", PLOT_SIZE, (255, 0, 0)).save(tmp_path / "plot.png")  # a red plot, easy to find in pixels
    with temporary_settings({PREFECT_API_URL: prefect_server.api_url}):
        publish_markdown("screenshot-check-report", "# Report\n\n![curve](plot.png)\n", "report", base_dir=tmp_path)
    url = latest_artifact_url(prefect_server.api_url, "screenshot-check-report")

    # The UI is a single-page app that fetches the artifact after it loads; on a
    # loaded host that can take longer than one page-time budget, so a blank
    # page is retried with more time before it counts as a broken image.
    seen = []
    for attempt, page_time_s in enumerate((30, 60, 120)):
        shot = screenshot(url, tmp_path / f"page-{attempt}.png", find_browser(), page_time_s=page_time_s)
        seen.append(red_pixels(shot))
        if seen[-1] > 0.5 * PLOT_SIZE[0] * PLOT_SIZE[1]:
            break
    else:
        pytest.fail(f"red pixels per attempt {seen} (want > {0.5 * PLOT_SIZE[0] * PLOT_SIZE[1]:.0f}): the embedded "
                    f"plot did not render at {url}; screenshots in {tmp_path}")
