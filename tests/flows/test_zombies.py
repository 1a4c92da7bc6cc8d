"""No zombies: `make down` cancels the runs it would orphan, and `make up` installs the heartbeat automation once.

Real parts: a `prefect server start` subprocess, deployments of a sleeping flow in real work pools.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from deployments.local_prefect import LocalServer
from deployments.zombies import cancel_active, install

pytestmark = pytest.mark.slow

WITHIN_S = 50
SLEEPER = '''
import time
from prefect import flow

@flow
def sleeper(seconds: float = 600) -> None:
    time.sleep(seconds)
'''


@pytest.fixture
def api(prefect_server: LocalServer):
    from prefect import get_client
    from prefect.settings import PREFECT_API_URL, temporary_settings

    with temporary_settings({PREFECT_API_URL: prefect_server.api_url}), get_client(sync_client=True) as client:
        yield client


def deploy_sleeper(tmp_path: Path, pool: str) -> str:
    from prefect import flow

    (tmp_path / "sleeper.py").write_text(SLEEPER)
    deployment = flow.from_source(source=str(tmp_path), entrypoint="sleeper.py:sleeper")
    return str(deployment.deploy(name=f"sleep-{pool}", work_pool_name=pool, print_next_steps=False))


def test_make_down_cancels_the_runs_of_its_pools_and_no_others(prefect_server: LocalServer, api, tmp_path: Path) -> None:
    from prefect.client.schemas.actions import WorkPoolCreate
    from prefect.states import Running

    mine, theirs = "down-mine", "down-theirs"
    for pool in (mine, theirs):
        api.create_work_pool(WorkPoolCreate(name=pool, type="process"), overwrite=True)
    runs = {pool: api.create_flow_run_from_deployment(deploy_sleeper(tmp_path, pool), state=Running())
            for pool in (mine, theirs)}
    assert cancel_active([mine]) == 1
    assert api.read_flow_run(runs[mine].id).state_name == "Cancelled"
    assert api.read_flow_run(runs[theirs].id).state_name == "Running"
    assert cancel_active([mine]) == 0  # idempotent


def test_installing_twice_leaves_one_automation(prefect_server: LocalServer, api) -> None:
    from prefect.automations import Automation

    from deployments.zombies import AUTOMATION_NAME

    install(WITHIN_S)
    install(WITHIN_S)
    assert sum(a.name == AUTOMATION_NAME for a in api.read_automations()) == 1
    assert Automation.read(name=AUTOMATION_NAME).trigger.within.total_seconds() == WITHIN_S


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))
