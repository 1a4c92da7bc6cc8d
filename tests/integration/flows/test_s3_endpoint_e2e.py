"""`storage.endpoint_url` on every path: `train-and-eval/arith` with its store on an S3-compatible endpoint (moto's
server), through a real Prefect server (PostgreSQL) and worker, including the `eval-checkpoint` runs its checkpoint
events trigger, and not one request for another S3 endpoint.

How "another endpoint" is caught: the worker (and so every flow-run process, trainer and evaluation it starts)
has AWS_ENDPOINT_URL pointing at a local sink that records what reaches it. Any client built without the
config's endpoint -- botocore's, s3fs's or the project's Store -- takes that variable instead of AWS's default,
so a path that forgets the endpoint shows up in the sink's log (and fails that path: the sink answers 503).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from deployments.local_prefect import LocalServer, start_worker, stop_group
from tests.integration.flows.test_deployments_e2e import REPO, TEST_STORE, prefect_cli, run_deployment, wait_final, \
    wait_for_triggered
from tests.prefect_fixtures import TEARDOWN_GRACE_S
from tests.s3_server import FAKE_ENV

pytestmark = pytest.mark.slow

LIMIT = 8


class Sink(ThreadingHTTPServer):
    """Records every request line it receives and answers 503."""

    def __init__(self) -> None:
        self.seen: list[str] = []
        sink = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self) -> None:
                sink.seen.append(f"{self.command} {self.headers.get('Host')}{self.path}")
                self.send_response(503)
                self.send_header("Content-Length", "0")
                self.end_headers()

            do_GET = do_PUT = do_POST = do_HEAD = do_DELETE = _answer

            def log_message(self, *args: object) -> None:
                pass

        super().__init__(("127.0.0.1", 0), Handler)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


@pytest.fixture
def sink() -> Iterator[Sink]:
    server = Sink()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def s3_deployed(prefect_server: LocalServer, s3_endpoint: str, sink: Sink, tmp_path: Path,
                trained_tiny_model_dir: Path) -> Iterator[LocalServer]:
    """Pools, every deployment, and a CPU worker whose environment sends S3 clients without an endpoint to the sink."""
    env = {**FAKE_ENV, "AWS_ENDPOINT_URL": sink.url, "RLVR_EVAL_POOL": "rlvr-cpu"}
    for pool in ("rlvr-cpu", "rlvr-gpu"):
        prefect_cli(prefect_server, "work-pool", "create", pool, "--type", "process", "--overwrite")
    prefect_cli(prefect_server, "deploy", "--all", env={"RLVR_EVAL_POOL": "rlvr-cpu"})
    worker = start_worker(prefect_server, "rlvr-cpu", tmp_path / "worker.log", tmp_path, env)
    try:
        yield prefect_server
    finally:
        stop_group(worker, grace_s=TEARDOWN_GRACE_S)


def test_train_and_eval_with_an_s3_store_sends_every_request_to_its_endpoint(
        s3_deployed: LocalServer, s3_endpoint: str, s3_bucket: str, sink: Sink, tmp_path: Path,
        trained_tiny_model_dir: Path) -> None:
    from prefect import get_client
    from prefect.settings import PREFECT_API_URL, temporary_settings

    from rlvr_core.storage import open_store

    root = f"s3://{s3_bucket}/store"
    store = open_store(root, s3_endpoint)
    model_key = trained_tiny_model_dir.relative_to(TEST_STORE).as_posix()  # the tiny model, not rebuilt here
    store.put_dir(trained_tiny_model_dir, model_key)
    runs_dir = tmp_path / "runs"
    params = {"max_steps": 4, "overrides": [
        f"run.runs_dir={runs_dir}", "checkpointing.every_steps=2", f"evaluation.limit={LIMIT}",
        f"storage.root={root}", f"storage.endpoint_url={s3_endpoint}", "storage.sync_runs=true"]}
    flow_run_id = run_deployment(s3_deployed, "train-and-eval/arith", params)
    with temporary_settings({PREFECT_API_URL: s3_deployed.api_url}), get_client(sync_client=True) as client:
        run = wait_final(client, flow_run_id, timeout_s=900)
        worker_log = (tmp_path / "worker.log").read_text()
        assert run.state.is_completed(), f"{run.state}\n{worker_log[-4000:]}"
        [run_dir] = list(runs_dir.iterdir())
        checkpoints = {str(p) for p in (run_dir / "checkpoints").iterdir() if (p / "checkpoint.json").exists()}
        triggered = wait_for_triggered(client, checkpoints, timeout_s=600)
        assert all(r.state.is_completed() for r in triggered), [(r.name, r.state) for r in triggered]

    assert sink.seen == [], f"requests for an S3 endpoint other than the config's: {sink.seen[:10]}"
    # What went to the endpoint: the datasets the run cached, its synced run folder with the evaluations of
    # the base model and both checkpoints, those of the triggered runs included.
    stored = set(store.list(""))
    assert any(key.startswith("datasets/arith/") for key in stored), sorted(stored)[:20]
    copy = f"runs/{run_dir.name}"
    assert {f"{copy}/report.md", f"{copy}/evals/step-000002/arith/summary.json",
            f"{copy}/evals/step-000004/arith/summary.json"} <= stored
    summary = json.loads(store.read_text(f"{copy}/evals/step-000004/arith/summary.json"))
    assert summary["n"] == LIMIT
    assert "base" in (run_dir / "report.md").read_text()
