"""`make up` / `make down` as a user runs them: the server on PostgreSQL, every deployment, a worker; `make down`
stops all of it, PostgreSQL included; `make up` again over the same database comes back whole.

Runs in a temporary state folder on a free port (RLVR_PREFECT_STATE, RLVR_PREFECT_PORT), so a `make up` of the
checkout is left alone. Ten restarts in a row: `python benchmarks/prefect_costs.py restarts --times 10`.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import yaml

from deployments.local_prefect import free_port
from deployments.postgres import Cluster

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture
def state(postgres_database: str) -> Iterator[Path]:  # postgres_database: skipped (with why) without PostgreSQL
    folder = Path(tempfile.mkdtemp(prefix="rlvr-make-up-"))
    folder.chmod(0o755)  # PostgreSQL's own user (when we are root) must reach the cluster's folder
    yield folder
    subprocess.run(["make", "-s", "down"], cwd=REPO, env=make_env(folder), capture_output=True, timeout=300)


def make_env(state: Path) -> dict[str, str]:
    port_file = state / "test-port"
    if not port_file.exists():
        port_file.write_text(str(free_port()))
    return {**os.environ, "RLVR_PREFECT_STATE": str(state), "RLVR_PREFECT_PORT": port_file.read_text()}


def make(target: str, state: Path) -> str:
    done = subprocess.run(["make", "-s", target], cwd=REPO, env=make_env(state), capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, f"make {target} failed:\n{(done.stdout + done.stderr)[-4000:]}"
    return done.stdout


def test_make_up_runs_on_postgresql_and_restarts_over_its_database(state: Path) -> None:
    api = f"http://127.0.0.1:{make_env(state)['RLVR_PREFECT_PORT']}/api"
    declared = sorted(d["name"] for d in yaml.safe_load((REPO / "prefect.yaml").read_text())["deployments"])
    cluster = Cluster(state / "postgres")
    for start in (1, 2):
        out = make("up", state)
        assert "database: PostgreSQL" in out, out
        with httpx.Client(base_url=api, timeout=30) as client:
            assert client.get("/health").status_code == 200
            deployments = client.post("/deployments/filter", json={"limit": 200}).json()
            automations = [a["name"] for a in client.post("/automations/filter", json={}).json()]
        assert sorted(d["name"] for d in deployments) == declared, f"start {start}"
        assert len(automations) == len(set(automations)), f"start {start}: {automations}"
        assert cluster.running()
        make("down", state)
        assert not cluster.running(), "make down leaves PostgreSQL running"
        with pytest.raises(httpx.HTTPError):
            httpx.get(f"{api}/health", timeout=5)
