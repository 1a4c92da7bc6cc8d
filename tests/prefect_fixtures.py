"""Prefect fixtures for the suite (a pytest plugin, registered in tests/conftest.py).

- `prefect_harness`: one `prefect_test_harness` for the whole session (it
  takes ~10 s to start), with task results persisted to a session temp folder
  instead of ~/.prefect/storage. Yields the API URL, so subprocesses (Ray
  workers, a flow run we SIGKILL) can talk to the same server.
- `prefect_server`: a real `prefect server start` subprocess on a free port
  with its own PREFECT_HOME and SQLite database, for tests that need what the
  harness lacks (workers, deployments, the scheduler, event triggers). Yields
  the environment a client or worker subprocess needs.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

SERVER_START_TIMEOUT_S = 90


@pytest.fixture(scope="session")
def prefect_harness(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    from prefect.settings import PREFECT_API_URL, PREFECT_LOCAL_STORAGE_PATH, temporary_settings
    from prefect.testing.utilities import prefect_test_harness

    storage = tmp_path_factory.mktemp("prefect-results")
    with temporary_settings({PREFECT_LOCAL_STORAGE_PATH: storage}):
        with prefect_test_harness(server_startup_timeout=SERVER_START_TIMEOUT_S):
            yield str(PREFECT_API_URL.value())


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def prefect_env(home: Path, api_url: str) -> dict[str, str]:
    """Environment for a Prefect client or worker subprocess talking to `api_url`."""
    return {
        **os.environ,
        "PREFECT_HOME": str(home),
        "PREFECT_API_URL": api_url,
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
        "PREFECT_WORKER_QUERY_SECONDS": "1",
        "PREFECT_LOCAL_STORAGE_PATH": str(home / "storage"),
    }


@pytest.fixture(scope="session")
def prefect_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    home = tmp_path_factory.mktemp("prefect-home")
    port = free_port()
    env = prefect_env(home, f"http://127.0.0.1:{port}/api")
    env["PREFECT_SERVER_SERVICES_SCHEDULER_LOOP_SECONDS"] = "5"
    log = open(home / "server.log", "w")
    server = subprocess.Popen([sys.executable, "-m", "prefect", "server", "start", "--host", "127.0.0.1",
                               "--port", str(port)], env=env, stdout=log, stderr=subprocess.STDOUT,
                              start_new_session=True)
    try:
        wait_healthy(env["PREFECT_API_URL"], server, home / "server.log")
        yield env
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
        log.close()


def wait_healthy(api_url: str, server: subprocess.Popen, log_path: Path) -> None:
    import httpx

    deadline = time.monotonic() + SERVER_START_TIMEOUT_S
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"prefect server exited ({server.returncode}):\n{log_path.read_text()[-3000:]}")
        try:
            if httpx.get(f"{api_url}/health", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    raise RuntimeError(f"prefect server not healthy after {SERVER_START_TIMEOUT_S} s:\n{log_path.read_text()[-3000:]}")
