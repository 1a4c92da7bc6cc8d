"""End to end through a real Prefect server and process worker, as after `make up`.

`prefect deploy --all` from the repository, then `prefect deployment run
train-and-eval/arith` with a short config and its store on an S3-compatible
endpoint (moto's server): training publishes checkpoints, their
`rlvr.checkpoint.saved` events trigger `eval-checkpoint/on-arrival` runs with
the checkpoint path, duplicate events do not add work, artifacts are
published, the run is synced to the store, not one request goes to another S3
endpoint, and the nightly deployment has scheduled runs. A cancelled training
ends Cancelled with no trainer process left behind, and `prefect flow-run
retry` resumes it from its last checkpoint.

How "another endpoint" is caught: the worker (and so every flow-run process, trainer and evaluation it starts)
has AWS_ENDPOINT_URL pointing at a local sink that records what reaches it. Any client built without the
config's endpoint -- botocore's, s3fs's or the project's Store -- takes that variable instead of AWS's default,
so a path that forgets the endpoint shows up in the sink's log (and fails that path: the sink answers 503).
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import yaml

from deployments.check_schedules import count_scheduled_runs
from deployments.local_prefect import LocalServer, start_worker, stop_group
from rlvr_core.rundir.atomic import pid_alive
from tests.prefect_fixtures import TEARDOWN_GRACE_S
from tests.s3_server import FAKE_ENV

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[3]
TEST_STORE = REPO / ".rlvr" / "test-cache" / "store"  # the tiny model is built once and reused across sessions
LIMIT = 32


def prefect_cli(server: LocalServer, *args: str, env: dict[str, str] | None = None) -> str:
    done = subprocess.run([sys.executable, "-m", "prefect", "--no-prompt", *args], cwd=REPO, capture_output=True,
                          text=True, env={**server.env, **(env or {})}, timeout=180)
    assert done.returncode == 0, f"prefect {' '.join(args)} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


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


@pytest.fixture(scope="module")
def sink() -> Iterator[Sink]:
    server = Sink()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def deployed(prefect_server: LocalServer, s3_endpoint: str, sink: Sink, tmp_path_factory: pytest.TempPathFactory,
             trained_tiny_model_dir: Path):
    """Pools, all deployments and a worker for the CPU pool (evaluations on the CPU pool too), whose environment
    sends S3 clients without an endpoint to the sink.

    The tiny model is built into TEST_STORE first, so the timed run below measures the pipeline, not a
    first-time model build (minutes on a fresh clone)."""
    env = {"RLVR_EVAL_POOL": "rlvr-cpu"}
    for pool in ("rlvr-cpu", "rlvr-gpu"):
        prefect_cli(prefect_server, "work-pool", "create", pool, "--type", "process", "--overwrite")
    prefect_cli(prefect_server, "deploy", "--all", env=env)
    logs = tmp_path_factory.mktemp("worker")
    # Started outside the checkout: flow runs find their code through prefect.yaml's pull step only.
    worker = start_worker(prefect_server, "rlvr-cpu", logs / "worker.log", logs,
                          {**env, **FAKE_ENV, "AWS_ENDPOINT_URL": sink.url})
    try:
        yield prefect_server, logs / "worker.log"
    finally:
        stop_group(worker, grace_s=TEARDOWN_GRACE_S)


def test_the_server_runs_at_background_priority_as_make_up_starts_it(deployed) -> None:
    import psutil

    server, _ = deployed
    # `nice -n 10` adds 10 to the caller's niceness (capped at 19): a suite that itself runs niced stays correct.
    assert psutil.Process(server.process.pid).nice() == min(19, os.nice(0) + 10)
    assert "nice -n 10 prefect server start" in (REPO / "deployments" / "up.sh").read_text()


def test_every_deployment_is_registered_with_prefect_yaml_pull_step_and_no_host_path(deployed) -> None:
    # What the server hands a worker: the checkout pull step as written, not the folder `prefect deploy` ran in.
    from prefect import get_client
    from prefect.settings import PREFECT_API_URL, temporary_settings

    server, _ = deployed
    config = yaml.safe_load((REPO / "prefect.yaml").read_text())
    declared = config["pull"]
    assert declared == [{"orchestration.checkout.enter_checkout": {}}]
    with temporary_settings({PREFECT_API_URL: server.api_url}), get_client(sync_client=True) as client:
        names = {d["name"] for d in config["deployments"]}  # other tests of the session deploy their own
        registered = [d for d in client.read_deployments() if d.name in names]
        assert len(registered) == len(config["deployments"])
        for deployment in registered:
            assert deployment.pull_steps == declared, deployment.name
            assert str(REPO) not in json.dumps(deployment.model_dump(mode="json")), deployment.name


def run_deployment(server: LocalServer, name: str, params: dict) -> str:
    out = prefect_cli(server, "deployment", "run", name, "--params", json.dumps(params))
    return next(line.split("UUID:")[1].strip() for line in out.splitlines() if "UUID:" in line)


def wait_final(client, flow_run_id: str, timeout_s: float):
    """The flow run once final. A failed read is tried again: under load the test server's SQLite can be
    locked for a while, which is the server's business, not the pipeline's."""
    from prefect.exceptions import PrefectHTTPStatusError

    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            run = client.read_flow_run(flow_run_id)
        except PrefectHTTPStatusError:
            run = None
        if run is not None and run.state is not None and run.state.is_final():
            return run
        time.sleep(1)
    raise TimeoutError(f"flow run {flow_run_id} not finished after {timeout_s} s")


def test_train_and_eval_arith_through_deployments_and_triggers_with_its_store_on_an_s3_endpoint(
        deployed, s3_endpoint: str, s3_bucket: str, sink: Sink, tmp_path: Path, trained_tiny_model_dir: Path) -> None:
    from prefect import get_client
    from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterKey, FlowRunFilter, FlowRunFilterId
    from prefect.settings import PREFECT_API_URL, temporary_settings

    from rlvr_core.storage import open_store

    server, worker_log = deployed
    root = f"s3://{s3_bucket}/store"
    store = open_store(root, s3_endpoint)
    store.put_dir(trained_tiny_model_dir, trained_tiny_model_dir.relative_to(TEST_STORE).as_posix())  # not rebuilt
    runs_dir = tmp_path / "runs"
    params = {"max_steps": 4, "overrides": [f"run.runs_dir={runs_dir}", "checkpointing.every_steps=2",
                                            f"evaluation.limit={LIMIT}", f"storage.root={root}",
                                            f"storage.endpoint_url={s3_endpoint}", "storage.sync_runs=true"]}
    flow_run_id = run_deployment(server, "train-and-eval/arith", params)
    with temporary_settings({PREFECT_API_URL: server.api_url}), get_client(sync_client=True) as client:
        run = wait_final(client, flow_run_id, timeout_s=600)
        assert run.state.is_completed(), f"{run.state}\n{worker_log.read_text()[-4000:]}"
        [run_dir] = list(runs_dir.iterdir())
        checkpoints = sorted(p for p in (run_dir / "checkpoints").iterdir() if (p / "checkpoint.json").exists())
        assert [p.name for p in checkpoints] == ["step-000002", "step-000004"]

        # The trigger started eval-checkpoint/on-arrival with each published checkpoint's path.
        triggered = wait_for_triggered(client, {str(p) for p in checkpoints}, timeout_s=300)
        assert {r.parameters["checkpoint"] for r in triggered} == {str(p) for p in checkpoints}
        assert all(r.state.is_completed() for r in triggered), [r.state for r in triggered]

        # The same event four more times: new runs, no new work.
        final_eval = run_dir / "evals" / "step-000004" / "arith"
        before = json.loads((final_eval / "summary.json").read_text())["created_at"]
        emit_checkpoint_events(server.api_url, run_dir.name, checkpoints[-1], step=4, times=4)
        repeats = wait_for_triggered(client, {str(checkpoints[-1])}, timeout_s=300, at_least=5)
        assert all(r.state.is_completed() for r in repeats)
        assert json.loads((final_eval / "summary.json").read_text())["created_at"] == before
        assert len((final_eval / "completions.jsonl").read_text().splitlines()) == LIMIT

        keys = {a.key for a in client.read_artifacts(artifact_filter=ArtifactFilter(
            key=ArtifactFilterKey(like_=run_dir.name.lower().replace("_", "-").replace(".", "-"))))}
        slug = run_dir.name.lower().replace("_", "-")
        assert {f"{slug}-report", f"{slug}-results", f"{slug}-training-progress", f"{slug}-training-table",
                f"{slug}-run-folder", f"{slug}-store-copy"} <= keys, keys
        assert (run_dir / "report.md").is_file() and "base" in (run_dir / "report.md").read_text()

        # storage.sync_runs: the whole run, report, every evaluation and the final checkpoint, is in the store too,
        # beside the datasets the run cached there; no client went to another S3 endpoint on the way.
        copy = f"runs/{run_dir.name}"
        synced = set(store.list(copy))
        assert {f"{copy}/report.md", f"{copy}/checkpoints/step-000004/checkpoint.json",
                f"{copy}/evals/step-000002/arith/summary.json", f"{copy}/evals/step-000004/arith/summary.json"} \
            <= synced, sorted(synced)
        assert any(path.startswith(f"{copy}/traces/") for path in synced)
        assert json.loads(store.read_text(f"{copy}/evals/step-000004/arith/summary.json"))["n"] == LIMIT
        assert any(key.startswith("datasets/arith/") for key in store.list("")), sorted(store.list(""))[:20]
        assert sink.seen == [], f"requests for an S3 endpoint other than the config's: {sink.seen[:10]}"

        assert count_scheduled_runs("baseline-eval/nightly") > 0

        # The runs list reads as experiments: a config-named run, tagged so the UI can filter by them.
        assert re.fullmatch(r"tiny-arith-\d{8}-\d{6}", run.name), run.name
        assert {"config:tiny-arith", "model:tiny:arith", "dataset:arith", f"run:{run_dir.name}"} <= set(run.tags), run.tags
        # Its own evaluations are its task runs; the trigger's are runs named and tagged after the checkpoint.
        own = client.read_task_runs(flow_run_filter=FlowRunFilter(id=FlowRunFilterId(any_=[run.id])))
        assert {"eval-base-arith", "eval-step-000004-arith"} <= {r.name for r in own}, [r.name for r in own]
        assert f"eval-{run_dir.name}-step-000004-arith" in {r.name for r in triggered}
        assert all(f"run:{run_dir.name}" in r.tags for r in triggered), [(r.name, r.tags) for r in triggered]
        assert {f"{slug}-base-results"} <= keys, keys


def emit_checkpoint_events(api_url: str, run_name: str, checkpoint: Path, step: int, times: int) -> None:
    """Send `times` checkpoint events to *this* server.

    Not `prefect.events.emit_event`: its worker is a process-wide singleton bound to the API URL of the
    first server any earlier test emitted to, so in a full suite the events would go to a server that
    has already stopped."""
    import asyncio

    from prefect.events import Event
    from prefect.events.clients import PrefectEventsClient

    async def send() -> None:
        async with PrefectEventsClient(api_url=api_url) as events:
            for _ in range(times):
                await events.emit(Event(event="rlvr.checkpoint.saved",
                                        resource={"prefect.resource.id": f"rlvr.run.{run_name}"},
                                        payload={"path": str(checkpoint), "step": step, "run": run_name}))

    asyncio.run(send())


def wait_for_triggered(client, paths: set[str], timeout_s: float, at_least: int = 1) -> list:
    """Finished eval-checkpoint runs for `paths`; waits until each path has `at_least` of them."""
    from prefect.client.schemas.filters import DeploymentFilter, DeploymentFilterName

    deadline = time.monotonic() + timeout_s
    while True:
        runs = [r for r in client.read_flow_runs(deployment_filter=DeploymentFilter(
                    name=DeploymentFilterName(any_=["on-arrival"])), limit=200)
                if r.parameters.get("checkpoint") in paths]
        finished = [r for r in runs if r.state is not None and r.state.is_final()]
        if all(sum(r.parameters["checkpoint"] == p for r in finished) >= at_least for p in paths):
            return finished
        if time.monotonic() > deadline:
            raise TimeoutError(f"triggered runs for {paths}: {[(r.parameters, r.state_name) for r in runs]}")
        time.sleep(1)


def run_logs(client, flow_run_id) -> list[str]:
    from prefect.client.schemas.filters import LogFilter, LogFilterFlowRunId

    return [log.message for offset in range(0, 2000, 200) for log in client.read_logs(
        log_filter=LogFilter(flow_run_id=LogFilterFlowRunId(any_=[flow_run_id])), limit=200, offset=offset)]


def test_a_bad_parameter_fails_the_run_with_one_line_and_no_traceback_in_its_log(deployed, tmp_path: Path) -> None:
    """What a user sees for a parameter to fix: Failed, the field and the fix in one line, and a log without
    the engine's traceback or a worker error about the process's exit."""
    from prefect import get_client
    from prefect.settings import PREFECT_API_URL, temporary_settings

    server, worker_log = deployed
    flow_run_id = run_deployment(server, "train-and-eval/arith", {"max_steps": 0,
                                                                  "overrides": [f"run.runs_dir={tmp_path}"]})
    with temporary_settings({PREFECT_API_URL: server.api_url}), get_client(sync_client=True) as client:
        run = wait_final(client, flow_run_id, timeout_s=300)
        assert run.state.is_failed(), f"{run.state}\n{worker_log.read_text()[-3000:]}"
        assert "training.max_steps" in run.state.message and "\n" not in run.state.message.strip()
        ended = wait_for_path(lambda: next((m for m in run_logs(client, run.id) if m.startswith("Process for flow run")),
                                           None), 120)  # the worker's last word on the run comes after its end
        logs = run_logs(client, run.id)
    assert "exited cleanly" in ended, ended
    assert not [m for m in logs if "Traceback" in m or "exited with status code" in m], logs
    assert not any(tmp_path.iterdir()), "no run folder for a config that cannot run"


def test_a_cancelled_training_ends_cancelled_and_a_retry_resumes_it_to_max_steps(deployed, tmp_path: Path) -> None:
    """Cancel mid-training: the run is Cancelled (not Completed, not cached) and no trainer is left;
    `prefect flow-run retry` resumes the same run folder from its last checkpoint to max_steps."""
    from prefect import get_client
    from prefect.client.schemas.filters import LogFilter, LogFilterFlowRunId
    from prefect.settings import PREFECT_API_URL, temporary_settings

    server, worker_log = deployed
    runs_dir = tmp_path / "runs"
    params = {"max_steps": 16, "evaluate_base": False,
              "overrides": [f"run.runs_dir={runs_dir}", "checkpointing.every_steps=8", "training.eval_every=0",
                            "evaluation.limit=8", f"storage.root={TEST_STORE}"]}
    flow_run_id = run_deployment(server, "train-and-eval/arith", params)
    first = wait_for_path(lambda: next(runs_dir.glob("*/checkpoints/step-000008/checkpoint.json"), None), 420,
                          poll_s=0.05)
    run_dir = first.parents[2]
    # Mid-training is made exact, not raced: the trainer and its watchdog are stopped (SIGSTOP) until the cancel
    # reaches them. A stopped process keeps the signals it is sent: each is let go once its SIGTERM is waiting, so
    # the watchdog passes the cancel on and the trainer ends without taking another step, however slowly the cancel
    # travels (CLI, server, worker, flow-run process).
    watchdog, trainer = trainer_processes(run_dir)
    for pid in (trainer, watchdog):
        os.kill(pid, signal.SIGSTOP)
    assert not (run_dir / "checkpoints" / "step-000016").exists(), "training ended before it could be held"

    prefect_cli(server, "flow-run", "cancel", flow_run_id)
    for pid in (watchdog, trainer):
        wait_for_path(lambda: run_dir if signal_waiting(pid, signal.SIGTERM) else None, 180, poll_s=0.02)
        os.kill(pid, signal.SIGCONT)
    with temporary_settings({PREFECT_API_URL: server.api_url}), get_client(sync_client=True) as client:
        cancelled = wait_final(client, flow_run_id, timeout_s=180)
        assert cancelled.state.is_cancelled(), f"{cancelled.state}\n{worker_log.read_text()[-4000:]}"
        wait_for_path(lambda: None if processes_mentioning(str(run_dir)) else run_dir, 60)
        kept = {p.name for p in (run_dir / "checkpoints").iterdir() if (p / "checkpoint.json").is_file()}
        assert kept == {"step-000008"}, kept
        # Cancelled is reported before the cancelled run's process has exited. Prefect's runner tracks a flow run's
        # process by the run's id, so a retry started before that exit is taken for it: the old process's exit
        # then removes the new one from the worker's books and reports the retried run Crashed with its status.
        flow_run_process = int(str(cancelled.infrastructure_pid).rpartition(":")[2])
        wait_for_path(lambda: None if pid_alive(flow_run_process) else run_dir, 120)

        prefect_cli(server, "flow-run", "retry", flow_run_id)
        retried = wait_final(client, flow_run_id, timeout_s=600)
        assert retried.state.is_completed(), f"{retried.state}\n{worker_log.read_text()[-4000:]}"
        assert retried.name == cancelled.name, "a retry keeps the run's name"
        assert [p.name for p in runs_dir.iterdir()] == [run_dir.name], "the retry must reuse the run folder"
        assert (run_dir / "checkpoints" / "step-000016" / "checkpoint.json").is_file()
        logs = [log.message for offset in range(0, 2000, 200) for log in client.read_logs(
            log_filter=LogFilter(flow_run_id=LogFilterFlowRunId(any_=[retried.id])), limit=200, offset=offset)]
        assert any(message.startswith("resuming: ") and "--resume" in message for message in logs), logs[-20:]


def trainer_processes(run_dir: Path) -> tuple[int, int]:
    """(watchdog, trainer) pids of the training of `run_dir`: both command lines hold the trainer's command,
    the watchdog's as `python -m rlvr_core.procgroup ... -- <trainer command>`."""
    from tasks.training import TRAIN_MODULE

    training = {pid: line for pid, line in processes_mentioning(str(run_dir)).items() if f"-m {TRAIN_MODULE} " in line}
    watchdogs = [pid for pid, line in training.items() if "-m rlvr_core.procgroup " in line]
    trainers = [pid for pid in training if pid not in watchdogs]
    assert len(watchdogs) == 1 and len(trainers) == 1, training
    return watchdogs[0], trainers[0]


def signal_waiting(pid: int, signum: int) -> bool:
    """Whether signal `signum` sent to process `pid` waits undelivered (the process is stopped)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("ShdPnd:"):
            return bool(int(line.split()[1], 16) >> (signum - 1) & 1)
    return False


def wait_for_path(find, timeout_s: float, poll_s: float = 0.5) -> Path:
    """What `find()` returns once it is not None (polled every `poll_s` seconds)."""
    deadline = time.monotonic() + timeout_s
    while (found := find()) is None:
        if time.monotonic() > deadline:
            raise TimeoutError(f"nothing found after {timeout_s} s")
        time.sleep(poll_s)
    return found


def processes_mentioning(text: str) -> dict[int, str]:
    """{pid: command line} of the live processes whose command line contains `text` (the trainer names its run
    folder); each command line is read once, and a process that ends meanwhile is left out (psutil gives None)."""
    import psutil

    lines = {proc.pid: " ".join(proc.info["cmdline"] or ()) for proc in psutil.process_iter(["cmdline"])}
    return {pid: line for pid, line in lines.items() if text in line}


def test_a_crashed_evaluation_is_taken_over_by_the_catch_up_deployment(deployed, tmp_path: Path,
                                                                      trained_tiny_model_dir: Path) -> None:
    """An eval-checkpoint run marked Crashed (as the heartbeat automation does) triggers
    `watch-checkpoints/catch-up` with its checkpoint, which evaluates what the crashed run left undone."""
    from datetime import datetime, timedelta, timezone

    from prefect import get_client
    from prefect.client.schemas.filters import DeploymentFilter, DeploymentFilterName
    from prefect.settings import PREFECT_API_URL, temporary_settings
    from prefect.states import Crashed, Running, Scheduled
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from rlvr_core.rundir.checkpoints import publish_checkpoint
    from rlvr_core.config import load_config
    from rlvr_core.rundir.create import create_run_dir

    server, worker_log = deployed
    config = load_config("tiny-arith", [f"run.runs_dir={tmp_path / 'runs'}", "evaluation.limit=8",
                                        f"storage.root={TEST_STORE}"])
    run_dir = create_run_dir(config)
    checkpoint = publish_checkpoint(AutoModelForCausalLM.from_pretrained(trained_tiny_model_dir),
                                    AutoTokenizer.from_pretrained(trained_tiny_model_dir), run_dir / "checkpoints",
                                    step=3, trainer_version=3, config_hash=config.config_hash()).path
    with temporary_settings({PREFECT_API_URL: server.api_url}), get_client(sync_client=True) as client:
        on_arrival = client.read_deployment_by_name("eval-checkpoint/on-arrival")
        later = datetime.now(timezone.utc) + timedelta(days=1)  # so the worker does not start it
        crashed = client.create_flow_run_from_deployment(on_arrival.id, parameters={"checkpoint": str(checkpoint)},
                                                         state=Scheduled(scheduled_time=later))
        client.set_flow_run_state(crashed.id, Running(), force=True)
        client.set_flow_run_state(crashed.id, Crashed(message="no heartbeat (test)"), force=True)

        summary = Path(checkpoint).parent.parent / "evals" / Path(checkpoint).name / "arith" / "summary.json"
        wait_for_path(lambda: summary if summary.is_file() else None, 300)
        catch_ups = client.read_flow_runs(deployment_filter=DeploymentFilter(
            name=DeploymentFilterName(any_=["catch-up"])))
        assert [r.parameters["path"] for r in catch_ups] == [str(checkpoint)], worker_log.read_text()[-3000:]
        assert json.loads(summary.read_text())["n"] == 8
