"""Published markdown shows its plots in the Prefect UI: local images travel inside the artifact."""

from __future__ import annotations

import base64
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from orchestration.artifacts import MAX_EMBEDDED_IMAGE_BYTES, artifact_key, embed_local_images  # noqa: E402
from orchestration.labels import config_run_name  # noqa: E402


def _plot(path: Path) -> bytes:
    fig, ax = plt.subplots(figsize=(2, 2))
    ax.plot([0, 1], [0, 1])
    fig.savefig(path)
    plt.close(fig)
    return path.read_bytes()


def test_a_plot_next_to_the_report_is_embedded_as_a_data_uri(tmp_path: Path) -> None:
    png = _plot(tmp_path / "metric_vs_step.png")
    markdown = "# Report\n\n![primary metric vs checkpoint step](metric_vs_step.png)\n"
    embedded = embed_local_images(markdown, tmp_path)
    prefix = "![primary metric vs checkpoint step](data:image/png;base64,"
    assert prefix in embedded and "metric_vs_step.png" not in embedded
    encoded = embedded.split(prefix, 1)[1].split(")", 1)[0]
    assert base64.b64decode(encoded) == png


def test_missing_oversized_and_outside_images_are_left_as_links(tmp_path: Path) -> None:
    (tmp_path / "huge.png").write_bytes(b"\0" * (MAX_EMBEDDED_IMAGE_BYTES + 1))
    outside = tmp_path.parent / "outside.png"
    _plot(outside)
    markdown = "![a](missing.png) ![b](huge.png) ![c](../outside.png) ![d](https://example.org/x.png)"
    assert embed_local_images(markdown, tmp_path) == markdown


def test_run_names_and_artifact_keys_are_readable() -> None:
    from datetime import datetime

    assert config_run_name("configs/tiny-arith.yaml", datetime(2026, 11, 23, 18, 45, 1)) == "tiny-arith-20261123-184501"
    assert artifact_key("tiny-arith_20261123.1845", "base", "results") == "tiny-arith-20261123-1845-base-results"


def test_progress_is_sent_at_most_every_interval_and_always_at_the_end(prefect_harness: str) -> None:
    """Each update is an API call and a database write on a server that shares the cores with the work it reports:
    a fast loop of 300 steps sends the first percentages it crosses per interval, then 100 %."""
    import time

    from prefect import flow, get_client
    from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterKey

    from orchestration.artifacts import Progress
    from orchestration.outbox import outbox

    sent: list[float] = []

    @flow
    def loop() -> None:
        progress = Progress("progress-throttle-test", "a fast loop", min_interval_s=0.2)
        started = time.monotonic()
        for step in range(1, 301):
            time.sleep(0.002)
            before = progress.last
            progress.update(step, 300)
            if progress.last != before:
                sent.append(time.monotonic() - started)

    loop()
    assert outbox().drain(60), "the last progress update was never sent"
    assert 2 <= len(sent) < 50, sent  # not one update per percent (100)
    assert all(b - a >= 0.2 for a, b in zip(sent, sent[1:-1]))
    with get_client(sync_client=True) as client:
        artifact, = client.read_artifacts(artifact_filter=ArtifactFilter(
            key=ArtifactFilterKey(any_=["progress-throttle-test"])))
    assert artifact.data == 100.0


def test_a_retried_run_keeps_the_name_its_first_attempt_got() -> None:
    from datetime import datetime

    first = config_run_name("tiny-arith", datetime(2026, 11, 23, 18, 45, 1), current="hissing-hoatzin")
    assert first == "tiny-arith-20261123-184501"
    assert config_run_name("tiny-arith", datetime(2026, 11, 24, 9, 0, 0), current=first) == first
    assert config_run_name("gsm8k", datetime(2026, 11, 24, 9, 0, 0), current=first) == "gsm8k-20261124-090000"
