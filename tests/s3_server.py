"""A real S3-compatible HTTP endpoint for tests: moto's server, in a process of its own, on 127.0.0.1.

Tests reach it through s3fs/boto3 exactly as a user's S3 would be reached;
only the endpoint URL differs. Fake credentials are set in the environment
(the standard AWS chain is what the store reads), and ~/.aws and the instance
metadata service are switched off so nothing real is ever used.

Register with `pytest_plugins = ["tests.s3_server"]` in the root conftest.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

FAKE_ENV = {
    "AWS_ACCESS_KEY_ID": "AKIATESTFAKEKEY12345",
    "AWS_SECRET_ACCESS_KEY": "fake-secret-do-not-log-0123456789",
    "AWS_DEFAULT_REGION": "us-east-1",
    "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent/aws-credentials",
    "AWS_CONFIG_FILE": "/nonexistent/aws-config",
    "AWS_EC2_METADATA_DISABLED": "true",
}
CLEARED_ENV = ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3")


@pytest.fixture(scope="session")
def s3_endpoint(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """URL of a moto S3 server running for the whole session, with fake credentials in the env.

    The server is its own process (`python -m moto.server`, as s3fs's tests run it), not moto's in-process
    ThreadedMotoServer: that one imports flask into the test process, and flask's context-local globals
    raise on attribute access, which breaks vLLM's kernel registration when an engine starts later in the
    same process.
    """
    with pytest.MonkeyPatch.context() as mp:
        for name in CLEARED_ENV:
            mp.delenv(name, raising=False)
        for name, value in FAKE_ENV.items():
            mp.setenv(name, value)
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        log = tmp_path_factory.mktemp("moto") / "server.log"
        with open(log, "w") as out:
            server = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
                                      env=dict(os.environ), stdout=out, stderr=subprocess.STDOUT)
        url = f"http://127.0.0.1:{port}"
        try:
            _wait_until_serving(server, url, log)
            yield url
        finally:
            server.terminate()
            try:
                server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                server.kill()


def _wait_until_serving(server: subprocess.Popen, url: str, log: Path, timeout_s: float = 60) -> None:
    import urllib.request

    deadline = time.monotonic() + timeout_s
    while True:
        try:
            with urllib.request.urlopen(f"{url}/moto-api/", timeout=2):
                return
        except OSError:
            if server.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"moto server did not start:\n{log.read_text()[-3000:]}") from None
            time.sleep(0.2)


@pytest.fixture
def s3_bucket(s3_endpoint: str) -> str:
    """A fresh, empty bucket on the moto server (created with boto3)."""
    import boto3

    name = f"test-{uuid.uuid4().hex[:12]}"
    boto3.client("s3", endpoint_url=s3_endpoint, region_name="us-east-1").create_bucket(Bucket=name)
    return name


@pytest.fixture
def dead_endpoint() -> str:
    """URL of a local port nothing listens on (connections are refused)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


@pytest.fixture
def hung_endpoint() -> Iterator[str]:
    """URL of a local port that accepts TCP connections (kernel backlog) but never replies."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(64)
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
