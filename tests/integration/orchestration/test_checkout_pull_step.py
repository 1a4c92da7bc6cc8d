"""The deployments' pull step: a flow run started anywhere ends up in the installed checkout.

Run through Prefect's own step runner (`prefect.deployments.steps.run_steps`) exactly as prefect.yaml
declares it, from a directory outside the checkout, against the session's Prefect API (the runner reports
each step as an event).
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest
import yaml

from orchestration import checkout

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture
def elsewhere(tmp_path: Path):
    before = os.getcwd()
    os.chdir(tmp_path)
    yield tmp_path
    os.chdir(before)


def test_prefect_yaml_pull_steps_move_a_flow_run_into_the_checkout(prefect_harness: str, elsewhere: Path) -> None:
    from prefect.deployments.steps.core import run_steps

    steps = yaml.safe_load((REPO / "prefect.yaml").read_text())["pull"]
    outputs = asyncio.run(run_steps(steps))
    assert Path.cwd() == REPO and outputs["directory"] == str(REPO)
    assert (Path.cwd() / "flows" / "train_and_eval.py").is_file()


def test_a_package_outside_a_checkout_is_refused_with_the_fix(elsewhere: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(checkout, "CHECKOUT", elsewhere)
    with pytest.raises(RuntimeError, match="pip install -e"):
        checkout.enter_checkout()
    assert Path.cwd() == elsewhere
