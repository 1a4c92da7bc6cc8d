"""Prefect fixtures for the suite (a pytest plugin, registered in tests/conftest.py).

- `prefect_harness`: one `prefect_test_harness` for the whole session (it
  takes ~10 s to start), with task results persisted to a session temp folder
  instead of ~/.prefect/storage. Yields the API URL, so subprocesses (Ray
  workers, a flow run we SIGKILL) can talk to the same server.
- `prefect_server`: a real `prefect server start` subprocess on a free port
  with its own PREFECT_HOME and SQLite database, for tests that need what the
  harness lacks (workers, deployments, the scheduler, event triggers). Yields
  a `LocalServer` whose `env` a client or worker subprocess uses.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from deployments.local_prefect import LocalServer, start_server

SERVER_START_TIMEOUT_S = 90


@pytest.fixture(scope="session")
def prefect_harness(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    from prefect.settings import PREFECT_API_URL, PREFECT_LOCAL_STORAGE_PATH, temporary_settings
    from prefect.testing.utilities import prefect_test_harness

    storage = tmp_path_factory.mktemp("prefect-results")
    with temporary_settings({PREFECT_LOCAL_STORAGE_PATH: storage}):
        with prefect_test_harness(server_startup_timeout=SERVER_START_TIMEOUT_S):
            yield str(PREFECT_API_URL.value())


@pytest.fixture(scope="session")
def prefect_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalServer]:
    server = start_server(tmp_path_factory.mktemp("prefect-home"))
    try:
        yield server
    finally:
        server.stop()
