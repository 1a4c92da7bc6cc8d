"""The report's plot is drawn in the Prefect UI, as a headless browser sees the artifact page.

Skipped where no Chromium is installed (CI installs none); the same check by
hand: `python deployments/screenshot_artifact.py <run>-report --out report.png`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from deployments.screenshot_artifact import find_browser, latest_artifact_url, screenshot

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(find_browser() is None, reason="no headless Chromium here (apt install chromium)")]


def test_an_image_beside_the_report_renders_in_the_artifact_page(prefect_server, tmp_path: Path) -> None:
    from PIL import Image
    from prefect.settings import PREFECT_API_URL, temporary_settings

    from tasks.artifacts import publish_markdown

    Image.new("RGB", (300, 200), (255, 0, 0)).save(tmp_path / "plot.png")  # a red plot, easy to find in pixels
    with temporary_settings({PREFECT_API_URL: prefect_server.api_url}):
        publish_markdown("screenshot-check-report", "# Report\n\n![curve](plot.png)\n", "report", base_dir=tmp_path)
    shot = screenshot(latest_artifact_url(prefect_server.api_url, "screenshot-check-report"),
                      tmp_path / "page.png", find_browser())

    pixels = Image.open(shot).convert("RGB").getdata()
    red = sum(1 for r, g, b in pixels if r > 200 and g < 60 and b < 60)
    assert red > 0.5 * 300 * 200, f"only {red} red pixels: the embedded plot did not render"
