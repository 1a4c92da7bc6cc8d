"""`eval-checkpoint` on a real published checkpoint of the tiny model: results, artifacts, and no duplicate work."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

LIMIT = 16


@pytest.fixture(scope="module")
def published_checkpoint(tmp_path_factory: pytest.TempPathFactory, tiny_model_dir: Path) -> Path:
    """A run folder (resolved tiny-arith config, limit 16) holding one checkpoint of the untrained tiny model."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from rlvr_core.rundir.checkpoints import publish_checkpoint
    from rlvr_core.config import load_config
    from rlvr_core.rundir.create import create_run_dir

    root = tmp_path_factory.mktemp("eval-flow")
    config = load_config("tiny-arith", [f"run.runs_dir={root / 'runs'}", f"evaluation.limit={LIMIT}",
                                        f"storage.root={root / 'store'}"])
    run_dir = create_run_dir(config)
    model = AutoModelForCausalLM.from_pretrained(tiny_model_dir)
    tokenizer = AutoTokenizer.from_pretrained(tiny_model_dir)
    info = publish_checkpoint(model, tokenizer, run_dir / "checkpoints", step=2, trainer_version=2,
                              config_hash=config.config_hash())
    return Path(info.path)


def test_the_same_checkpoint_event_five_times_gives_one_evaluation(prefect_harness: str, published_checkpoint: Path) -> None:
    """Five concurrent deliveries of one event, then a late one: a single evaluation is computed and shared."""
    from flows.eval_checkpoint import eval_checkpoint

    results: list[dict] = []
    errors: list[BaseException] = []

    def deliver() -> None:
        try:
            results.append(eval_checkpoint(str(published_checkpoint)))
        except BaseException as exc:  # surfaced below; a thread would swallow it
            errors.append(exc)

    threads = [threading.Thread(target=deliver) for _ in range(5)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(600)
    assert not errors, errors
    late = eval_checkpoint(str(published_checkpoint))

    out = published_checkpoint.parent.parent / "evals" / published_checkpoint.name / "arith"
    completions = (out / "completions.jsonl").read_text().splitlines()
    assert len(completions) == LIMIT, "duplicate deliveries generated completions more than once"
    summary = json.loads((out / "summary.json").read_text())
    assert summary["n"] == LIMIT
    assert all(r["arith"]["created_at"] == summary["created_at"] for r in [*results, late])
    assert not (out / ".claim").exists()


def test_a_path_that_is_not_a_published_checkpoint_is_named(prefect_harness: str, published_checkpoint: Path) -> None:
    from flows.eval_checkpoint import eval_checkpoint

    state = eval_checkpoint(str(published_checkpoint.parent / "step-999999"), return_state=True)
    assert state.is_failed() and "not a published checkpoint" in state.message


def test_a_progress_artifact_follows_an_evaluation_over_several_benchmarks_and_not_over_one(
        prefect_harness: str) -> None:
    """Over one benchmark a progress bar only jumps from 0 % to 100 %, which the run's state already says."""
    from prefect import flow, get_client
    from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterKey

    from flows.eval_checkpoint import _benchmark_progress

    @flow
    def evaluations() -> None:
        assert _benchmark_progress("progress-one", "step-000010", benchmarks=1) is None
        on_result = _benchmark_progress("progress-two", "step-000010", benchmarks=2)
        on_result(1)
        on_result(2)

    evaluations()
    with get_client(sync_client=True) as client:
        artifacts = client.read_artifacts(artifact_filter=ArtifactFilter(
            key=ArtifactFilterKey(any_=["progress-one-step-000010-eval-progress",
                                        "progress-two-step-000010-eval-progress"])))
    assert [(a.key, a.data) for a in artifacts] == [("progress-two-step-000010-eval-progress", 100.0)]


def test_an_evaluation_run_is_named_after_its_checkpoint_and_benchmarks(prefect_harness: str,
                                                                       published_checkpoint: Path) -> None:
    """A triggered run gets only the checkpoint path: its name still says which run, step and benchmarks."""
    from prefect import get_client

    from flows.eval_checkpoint import eval_checkpoint

    state = eval_checkpoint(str(published_checkpoint), return_state=True)
    with get_client(sync_client=True) as client:
        name = client.read_flow_run(state.state_details.flow_run_id).name
    assert name == f"eval-{published_checkpoint.parent.parent.name}-step-000002-arith"
