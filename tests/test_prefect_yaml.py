"""prefect.yaml names real flows, and every parameter it passes (fixed or from a trigger) is one they take."""

from __future__ import annotations

import importlib
import inspect
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
DEPLOYMENTS = yaml.safe_load((REPO / "prefect.yaml").read_text())["deployments"]


def flow_of(entrypoint: str):
    path, _, name = entrypoint.partition(":")
    return getattr(importlib.import_module(path.removesuffix(".py").replace("/", ".")), name)


@pytest.mark.parametrize("deployment", DEPLOYMENTS, ids=lambda d: f"{flow_of(d['entrypoint']).name}/{d['name']}")
def test_every_parameter_a_deployment_passes_is_one_its_flow_takes(deployment: dict) -> None:
    flow = flow_of(deployment["entrypoint"])
    accepted = set(inspect.signature(flow.fn).parameters)
    passed = set(deployment.get("parameters") or {})
    for trigger in deployment.get("triggers") or []:
        passed |= set(trigger.get("parameters") or {})
    assert passed <= accepted, f"{deployment['name']}: {sorted(passed - accepted)} not in {sorted(accepted)}"
    required = {name for name, p in inspect.signature(flow.fn).parameters.items() if p.default is p.empty}
    if deployment.get("schedules") or deployment.get("triggers"):
        assert required <= passed, f"{deployment['name']} runs unattended but leaves {sorted(required - passed)} unset"


def test_deployment_names_are_unique_per_flow() -> None:
    keys = [(flow_of(d["entrypoint"]).name, d["name"]) for d in DEPLOYMENTS]
    assert len(keys) == len(set(keys))
