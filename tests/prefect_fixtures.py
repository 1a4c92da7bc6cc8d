"""Prefect fixtures for the suite (a pytest plugin, registered in tests/conftest.py).

- `prefect_harness`: one `prefect_test_harness` for the whole session (it
  takes ~10 s to start), with task results persisted to a session temp folder
  instead of ~/.prefect/storage. Yields the API URL, so subprocesses (Ray
  workers, a flow run we SIGKILL) can talk to the same server.
- `prefect_server`: a real `prefect server start` subprocess on a free port
  with its own PREFECT_HOME, on a PostgreSQL database as after `make up`, for
  tests that need what the harness lacks (workers, deployments, the
  scheduler, event triggers). Yields a `LocalServer` whose `env` a client or
  worker subprocess uses.
- `postgres_database`: the URL of a throwaway PostgreSQL cluster
  (`deployments/postgres.py`). Where no PostgreSQL is installed, the tests
  that need it are skipped with that reason; with RLVR_REQUIRE_POSTGRES=1
  (CI's `.ci/run` sets it after installing PostgreSQL) they fail instead.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from deployments.local_prefect import LocalServer, start_server
from deployments.postgres import Cluster, PostgresUnavailable, require_bin_dir

SERVER_START_TIMEOUT_S = 90
# A worker told to stop waits for the flow runs it started (Prefect's graceful shutdown); when a test's module
# is done, nothing it started is worth waiting for, so its workers get a short grace before SIGKILL.
TEARDOWN_GRACE_S = 3


@pytest.fixture(scope="session")
def prefect_harness(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    from prefect.settings import PREFECT_API_URL, PREFECT_LOCAL_STORAGE_PATH, temporary_settings
    from prefect.testing.utilities import prefect_test_harness

    storage = tmp_path_factory.mktemp("prefect-results")
    with temporary_settings({PREFECT_LOCAL_STORAGE_PATH: storage}):
        with prefect_test_harness(server_startup_timeout=SERVER_START_TIMEOUT_S):
            yield str(PREFECT_API_URL.value())


@pytest.fixture(scope="session")
def postgres_database() -> Iterator[str]:
    try:
        require_bin_dir()
    except PostgresUnavailable as err:
        if os.environ.get("RLVR_REQUIRE_POSTGRES") == "1":
            pytest.fail(f"RLVR_REQUIRE_POSTGRES=1 but {err}")
        pytest.skip(f"needs PostgreSQL, as `make up` runs the server on it (CI installs it): {err}")
    # Not under pytest's temp folder (mode 700): as root, PostgreSQL runs as its own user, which must reach it.
    folder = Path(tempfile.mkdtemp(prefix="rlvr-postgres-"))
    folder.chmod(0o755)
    cluster = Cluster(folder / "cluster")
    try:
        yield cluster.ensure_running()
    finally:
        cluster.stop()
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session")
def prefect_server(tmp_path_factory: pytest.TempPathFactory, postgres_database: str) -> Iterator[LocalServer]:
    server = start_server(tmp_path_factory.mktemp("prefect-home"), database_url=postgres_database)
    try:
        yield server
    finally:
        server.stop()
