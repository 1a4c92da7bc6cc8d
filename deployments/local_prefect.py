"""Start and stop a throwaway local Prefect server (tests, benchmarks); `make up` does the same in bash.

A server on a free port with its own PREFECT_HOME (result storage, and the
SQLite database unless `database_url` names a PostgreSQL one, as `make up`
uses: `deployments/postgres.py`) so nothing touches the user's ~/.prefect.
`env` is what a client or worker subprocess needs to talk to it; the
database URL (it holds a password) stays in the server's own environment.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

START_TIMEOUT_S = 120
# The server answers a few requests a second during a run: at nice 10 (as `make up` starts it) it takes
# the CPU that training leaves instead of competing with it on a small node.
SERVER_NICE = ("nice", "-n", "10")


@dataclass
class LocalServer:
    process: subprocess.Popen
    env: dict[str, str]
    log_path: Path

    @property
    def api_url(self) -> str:
        return self.env["PREFECT_API_URL"]

    def stop(self) -> None:
        stop_group(self.process)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def client_env(home: Path, api_url: str) -> dict[str, str]:
    """Environment for a Prefect client or worker subprocess talking to `api_url` (worker polls every second)."""
    return {
        **os.environ,
        "PREFECT_HOME": str(home),
        "PREFECT_API_URL": api_url,
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
        "PREFECT_WORKER_QUERY_SECONDS": "1",
        "PREFECT_LOCAL_STORAGE_PATH": str(home / "storage"),
    }


def start_server(home: Path, scheduler_loop_s: int = 5, database_url: str | None = None) -> LocalServer:
    """A `prefect server start` subprocess (own session) on a free port, healthy when this returns.

    With `database_url` (PostgreSQL), its migrations run first (`prefect server database upgrade`), as
    `make up` runs them; without, the server creates a SQLite database in `home`.
    """
    home.mkdir(parents=True, exist_ok=True)
    port = free_port()
    env = client_env(home, f"http://127.0.0.1:{port}/api")
    env["PREFECT_SERVER_SERVICES_SCHEDULER_LOOP_SECONDS"] = str(scheduler_loop_s)
    server_env = dict(env)
    if database_url:
        server_env.update(database_env(database_url))
        upgrade_database(server_env)
    log_path = home / "server.log"
    with open(log_path, "w") as log:
        process = subprocess.Popen([*SERVER_NICE, sys.executable, "-m", "prefect", "server", "start", "--host",
                                    "127.0.0.1", "--port", str(port)], env=server_env, stdout=log,
                                   stderr=subprocess.STDOUT, start_new_session=True)
    server = LocalServer(process, env, log_path)
    try:
        wait_healthy(server)
    except BaseException:
        server.stop()
        raise
    return server


def database_env(database_url: str) -> dict[str, str]:
    """Server settings for a PostgreSQL database whose migrations `upgrade_database` has run."""
    return {"PREFECT_API_DATABASE_CONNECTION_URL": database_url, "PREFECT_API_DATABASE_MIGRATE_ON_START": "false"}


def upgrade_database(server_env: dict[str, str]) -> None:
    """`prefect server database upgrade`: bring the database's schema to this Prefect's (no-op when current)."""
    done = subprocess.run([sys.executable, "-m", "prefect", "--no-prompt", "server", "database", "upgrade", "-y"],
                          env=server_env, capture_output=True, text=True, timeout=START_TIMEOUT_S)
    if done.returncode != 0:
        raise RuntimeError(f"prefect server database upgrade failed:\n{(done.stdout + done.stderr)[-3000:]}")


def start_worker(server: LocalServer, pool: str, log_path: Path, cwd: Path,
                 extra_env: dict[str, str] | None = None) -> subprocess.Popen:
    """A process worker for `pool` (created if missing), in its own session so `stop_group` ends its flow runs too."""
    with open(log_path, "w") as log:
        return subprocess.Popen([sys.executable, "-m", "prefect", "worker", "start", "--pool", pool, "--type",
                                 "process"], env={**server.env, **(extra_env or {})}, cwd=cwd, stdout=log,
                                stderr=subprocess.STDOUT, start_new_session=True)


def wait_healthy(server: LocalServer) -> None:
    import httpx

    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            raise RuntimeError(f"prefect server exited ({server.process.returncode}):\n"
                               f"{server.log_path.read_text()[-3000:]}")
        try:
            if httpx.get(f"{server.api_url}/health", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    raise RuntimeError(f"prefect server not healthy after {START_TIMEOUT_S} s:\n{server.log_path.read_text()[-3000:]}")


def stop_group(*processes: subprocess.Popen, grace_s: float = 20) -> None:
    """SIGTERM each process's session group at once, SIGKILL the groups still there `grace_s` later.

    All are signalled before any is waited for, so stopping several costs one grace period, not one each.
    """
    signalled = []
    for process in processes:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
            signalled.append(process)
    deadline = time.monotonic() + grace_s
    for process in signalled:
        try:
            process.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()
