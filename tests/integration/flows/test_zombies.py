"""No zombies: a run whose machine dies is marked Crashed; `make down` cancels and stops what it would orphan.

Real parts: a `prefect server start` subprocess, a process worker with heartbeats on, deployments of a
sleeping flow in real work pools, SIGKILL of the worker and the flow-run process (as a machine restart
would), and the automation `deployments/zombies.py` installs.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time
from pathlib import Path

import pytest

from deployments.local_prefect import LocalServer, start_worker, stop_group
from deployments.zombies import AUTOMATION_NAME, ORPHAN_AUTOMATION_NAME, cancel_active, install

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[3]

HEARTBEAT_S = 30  # Prefect's minimum
WITHIN_S = 50     # more than one heartbeat interval, so a live run is never crashed
PENDING_WITHIN_S = 20
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


@pytest.fixture(autouse=True)
def automations_removed_afterwards(prefect_server: LocalServer):
    """The session's later tests share this server, and their runs send a heartbeat every 180 s (Prefect's
    default): an automation installed here with a 50-s window would crash them."""
    yield
    from prefect.automations import Automation
    from prefect.settings import PREFECT_API_URL, temporary_settings

    with temporary_settings({PREFECT_API_URL: prefect_server.api_url}):
        for name in (AUTOMATION_NAME, ORPHAN_AUTOMATION_NAME):
            with contextlib.suppress(ValueError):  # not installed by this test
                Automation.read(name=name).delete()


def deploy_sleeper(tmp_path: Path, pool: str) -> str:
    from prefect import flow

    (tmp_path / "sleeper.py").write_text(SLEEPER)
    deployment = flow.from_source(source=str(tmp_path), entrypoint="sleeper.py:sleeper")
    return str(deployment.deploy(name=f"sleep-{pool}", work_pool_name=pool, print_next_steps=False))


def wait_state(client, flow_run_id, names: set[str], timeout_s: float):
    deadline = time.monotonic() + timeout_s
    while True:
        run = client.read_flow_run(flow_run_id)
        if run.state_name in names:
            return run
        assert time.monotonic() < deadline, f"flow run still {run.state_name} after {timeout_s} s"
        time.sleep(1)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_a_run_whose_machine_dies_is_marked_crashed(prefect_server: LocalServer, api, tmp_path: Path) -> None:
    from prefect.client.schemas.actions import WorkPoolCreate

    pool = "zombie-test"
    api.create_work_pool(WorkPoolCreate(name=pool, type="process"), overwrite=True)
    deployment_id = deploy_sleeper(tmp_path, pool)
    install(WITHIN_S)
    worker = start_worker(prefect_server, pool, tmp_path / "worker.log", tmp_path,
                          {"PREFECT_FLOWS_HEARTBEAT_FREQUENCY": str(HEARTBEAT_S)})
    try:
        run = api.create_flow_run_from_deployment(deployment_id)
        running = wait_state(api, run.id, {"Running"}, timeout_s=180)
        time.sleep(5)  # past the first heartbeat
    finally:
        os.killpg(worker.pid, signal.SIGKILL)
        stop_group(worker)
    flow_pid = int(str(running.infrastructure_pid).rpartition(":")[2])
    # As when the machine dies: the flow-run process goes too (it may already have gone with its worker).
    with contextlib.suppress(ProcessLookupError):
        os.killpg(flow_pid, signal.SIGKILL)
    crashed = wait_state(api, run.id, {"Crashed", "Completed", "Failed", "Cancelled"},
                         timeout_s=HEARTBEAT_S + WITHIN_S + 60)
    assert crashed.state_name == "Crashed", crashed.state
    assert "no heartbeat" in (crashed.state.message or "")


def test_a_run_a_worker_took_but_never_started_is_crashed_saying_so(prefect_server: LocalServer, api,
                                                                    tmp_path: Path) -> None:
    """A worker sets a run Pending, then dies before starting its process: no heartbeat will ever come, so the
    orphan automation crashes it with the reason (and catch-up or a retry can take it from there)."""
    from prefect.client.schemas.actions import WorkPoolCreate
    from prefect.states import Pending

    pool = "orphan-test"
    api.create_work_pool(WorkPoolCreate(name=pool, type="process"), overwrite=True)
    deployment_id = deploy_sleeper(tmp_path, pool)
    install(WITHIN_S, pending_within_s=PENDING_WITHIN_S)
    run = api.create_flow_run_from_deployment(deployment_id)
    api.set_flow_run_state(run.id, Pending())  # as the worker does when it takes the run; no process follows
    ended = wait_state(api, run.id, {"Crashed", "Completed", "Failed", "Cancelled"}, timeout_s=PENDING_WITHIN_S + 120)
    assert ended.state_name == "Crashed", ended.state
    assert "never started" in (ended.state.message or ""), ended.state.message


def test_a_run_whose_worker_is_killed_is_crashed_naming_the_worker(prefect_server: LocalServer, api,
                                                                   tmp_path: Path) -> None:
    """The worker and the run's process are killed, as the OOM killer or a container stop does, while the
    worker's supervisor (as `make up` starts it) stays: the run ends Crashed with a message that names the worker
    and how it ended, not Prefect's generic one. (A worker told to stop waits for its runs instead: Prefect's
    graceful shutdown.)"""
    import subprocess

    import psutil
    from prefect.client.schemas.actions import WorkPoolCreate

    pool = "worker-death"
    api.create_work_pool(WorkPoolCreate(name=pool, type="process"), overwrite=True)
    deployment_id = deploy_sleeper(tmp_path, pool)
    with open(tmp_path / "supervisor.log", "w") as log:
        supervisor = subprocess.Popen([sys.executable, str(REPO / "deployments" / "worker.py"), "--pool", pool,
                                       "--name", "doomed-worker"], env=prefect_server.env, cwd=tmp_path, stdout=log,
                                      stderr=subprocess.STDOUT, start_new_session=True)
    try:
        run = api.create_flow_run_from_deployment(deployment_id)
        running = wait_state(api, run.id, {"Running"}, timeout_s=180)
        [worker] = psutil.Process(supervisor.pid).children()
        doomed = [worker, *worker.children(recursive=True)]
        assert int(str(running.infrastructure_pid).rpartition(":")[2]) in {p.pid for p in doomed}
        for process in doomed:
            process.kill()
        ended = wait_state(api, run.id, {"Crashed", "Completed", "Failed", "Cancelled"}, timeout_s=180)
        assert supervisor.wait(60) is not None
    finally:
        stop_group(supervisor)
    assert ended.state_name == "Crashed", (ended.state, (tmp_path / "supervisor.log").read_text()[-3000:])
    assert "its worker doomed-worker" in ended.state.message and "killed by SIGKILL" in ended.state.message, \
        ended.state.message


def test_make_down_stops_the_flow_run_processes_of_its_pools(prefect_server: LocalServer, api, tmp_path: Path) -> None:
    from prefect.client.schemas.actions import WorkPoolCreate

    pool = "down-live"
    api.create_work_pool(WorkPoolCreate(name=pool, type="process"), overwrite=True)
    deployment_id = deploy_sleeper(tmp_path, pool)
    worker = start_worker(prefect_server, pool, tmp_path / "worker.log", tmp_path)
    try:
        run = api.create_flow_run_from_deployment(deployment_id)
        running = wait_state(api, run.id, {"Running"}, timeout_s=180)
        flow_pid = int(str(running.infrastructure_pid).rpartition(":")[2])
        assert cancel_active([pool]) == 1
    finally:
        stop_group(worker)
    assert api.read_flow_run(run.id).state_name == "Cancelled"
    deadline = time.monotonic() + 30
    while alive(flow_pid) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert not alive(flow_pid)


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

    install(WITHIN_S)
    install(WITHIN_S)
    names = [a.name for a in api.read_automations()]
    assert names.count(AUTOMATION_NAME) == 1 and names.count(ORPHAN_AUTOMATION_NAME) == 1
    assert Automation.read(name=AUTOMATION_NAME).trigger.within.total_seconds() == WITHIN_S


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))
