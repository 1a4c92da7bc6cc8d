"""What Prefect costs: the demo through Prefect vs the same steps called directly, and event -> eval start latency.

    python benchmarks/prefect_costs.py overhead [--max-steps 30] [--repeats 1]
    python benchmarks/prefect_costs.py latency [--events 5] [--during-training]
    python benchmarks/prefect_costs.py restarts [--times 10]

overhead: each measurement runs in a fresh process (same imports to pay, no
warm caches shared between modes), alternating direct and Prefect. Both do
the same work: cache datasets, resolve the tiny model, create a run folder,
train (the trainer CLI as a subprocess), evaluate the base model and each
checkpoint as it appears beside training (one at a time, as the flow does
on CPU), build the report. The Prefect mode runs the
`train-and-eval` flow against a local server started beforehand (as after
`make up`); the server's start-up is reported separately. Target: overhead
<= 3 % of the direct wall time. Each measurement also prints where the CPU
went (the run process, its training subprocess, the server) and where the
wall time went: Python start-up, the work (and of it what falls outside the
phases both modes time: imports, flow-run bookkeeping), the process's exit
(Prefect flushes its logs and events), and the phases themselves. On 2
shared cores, CPU the server or the flow process spends during training
slows training itself.

latency: a local server (on PostgreSQL, as `make up` runs it, unless
`--database sqlite`), the `eval-checkpoint/on-arrival` deployment with its
trigger, and a process worker polling every second
(PREFECT_WORKER_QUERY_SECONDS=1). For each event: time from the event's
`occurred` to the triggered flow run being created (the automation fired)
and to it entering Running (the worker started a process and the flow code
is executing; this includes the Python start-up of the flow-run process).
With `--during-training`, a `train-and-eval` run of tiny-arith (its own
evaluations, checkpoint events and artifacts included) runs against the same
server while the events are sent, as on a node that trains. Target: median
<= 5 s, max <= 15 s.

restarts: `make up` then `make down`, `--times` times in a row over the same
state folder (a temporary one, so a running `make up` is left alone) and so
the same PostgreSQL database: each start must answer /health, hold every
deployment of prefect.yaml once and each automation once; any failure or a
start that takes over 10 minutes (a wedged server) stops the check.

The machine stalls for seconds at random and other jobs share its 2 cores:
compare figures from the same invocation only.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def run_direct(config: str, overrides: list[str]) -> dict:
    """The demo's steps without Prefect: the same rlvr_core calls in the same order."""
    from orchestration.checkpoint_evals import background_thread, eval_cpu_threads
    from rlvr_core.config import load_config
    from rlvr_core.data.loader import cache_dataset
    from rlvr_core.evaluation import evaluate
    from rlvr_core.models.resolve import resolve_model_path
    from rlvr_core.procgroup import ProcessGroup
    from rlvr_core.reports import build_report
    from rlvr_core.rundir.create import create_run_dir
    from rlvr_core.storage import open_store
    from rlvr_core.timing import timed
    from rlvr_core.rundir.evals import CheckpointWatcher, results_dir
    from rlvr_core.rundir.layout import evals_dir
    from tasks.data import required_datasets
    from tasks.training import training_command

    started = time.monotonic()
    cfg = load_config(config, overrides)
    store = open_store(cfg.storage.root, cfg.storage.endpoint_url)
    for name, split in required_datasets(cfg):
        cache_dataset(name, split, store)
    base_model = resolve_model_path(cfg.model.name_or_path, store)
    run_dir = create_run_dir(cfg)
    ev = cfg.evaluation
    threads = eval_cpu_threads(cfg, usable_gpus=0)  # as the flow sets them on a node without GPUs

    def evaluate_checkpoint(path: str) -> None:
        for bench in ev.benchmarks:
            evaluate(path, bench, output_dir=results_dir(path, bench), limit=ev.limit, batch_size=ev.batch_size,
                     store=store, progress=False, cpu_threads=threads)

    def evaluate_base() -> None:
        for bench in ev.benchmarks:
            evaluate(base_model, bench, output_dir=results_dir(base_model, bench, evals_dir(run_dir)), limit=ev.limit,
                     batch_size=ev.batch_size, store=store, progress=False, cpu_threads=threads)

    # As the flow schedules them: one evaluation at a time (CPU), beside training, the base model first.
    watcher = CheckpointWatcher(run_dir)
    phases = {"setup": time.monotonic() - started}  # what the flow times as setup and model
    with ThreadPoolExecutor(max_workers=1, initializer=background_thread) as evals:
        pending = [evals.submit(evaluate_base)]
        with timed(phases, "training"), ProcessGroup(training_command(config, overrides, str(run_dir),
                                                                       resume=False)) as group:
            reader = threading.Thread(target=lambda: [None for _ in group.lines()], daemon=True)
            reader.start()
            while reader.is_alive():
                reader.join(2.0)
                pending += [evals.submit(evaluate_checkpoint, c) for c in watcher.new_checkpoints()]
            if group.wait() != 0:
                raise RuntimeError("training failed")
        with timed(phases, "evals after training"):
            pending += [evals.submit(evaluate_checkpoint, c) for c in watcher.new_checkpoints()]
            for future in pending:
                future.result()
    with timed(phases, "report"):
        build_report(run_dir)
    return {"run_dir": str(run_dir), "phases": phases}


def run_prefect(config: str, overrides: list[str]) -> dict:
    from flows.train_and_eval import train_and_eval

    result = train_and_eval(config, overrides)
    return {"run_dir": result["run_dir"], "phases": result["seconds"]}


def tree_cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a live process and its live descendants (the Prefect server's workers)."""
    import psutil

    total = 0.0
    root = psutil.Process(pid)
    for process in [root, *root.children(recursive=True)]:
        with contextlib.suppress(psutil.Error):
            times = process.cpu_times()
            total += times.user + times.system
    return total


def measure_one(mode: str, config: str, overrides: list[str], env: dict[str, str], server_pid: int) -> dict:
    """Wall time of one mode in a fresh process (from its start to its end), and where the CPU went: the run
    process itself (flow or direct calls, evaluations), its children (training, Ray) and the Prefect server
    (which both modes leave running; only the Prefect mode talks to it)."""
    server_before = tree_cpu_seconds(server_pid)
    started = time.monotonic()  # CLOCK_MONOTONIC: the same clock in the child, so start-up and exit split out
    out = subprocess.run([sys.executable, __file__, "_run", mode, config, *overrides], cwd=REPO, env=env,
                         check=True, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True).stdout
    ended = time.monotonic()
    result = json.loads(out.strip().splitlines()[-1])
    work = result["body"][1] - result["body"][0]
    in_phases = sum(seconds for phase, seconds in result["phases"].items() if "beside" not in phase)  # no overlaps
    spans = {"start-up": result["body"][0] - started, "work": work, "of it outside the phases": work - in_phases,
             "exit": ended - result["body"][1]}
    return {"wall": ended - started, **result["cpu_seconds"], "spans": spans, "phases": result["phases"],
            "server": tree_cpu_seconds(server_pid) - server_before}


def overhead(args: argparse.Namespace) -> None:
    from deployments.local_prefect import start_server

    work = Path(tempfile.mkdtemp(prefix="rlvr-bench-"))
    overrides = [f"run.runs_dir={work / 'runs'}", *(["training.max_steps=%d" % args.max_steps] if args.max_steps else []),
                 *args.override]
    t0 = time.perf_counter()
    server = start_server(work / "prefect-home")
    print(f"local Prefect server healthy in {time.perf_counter() - t0:.1f} s (not counted below)")
    try:
        # Warm-up (not timed): builds the tiny model and caches the data once for both modes.
        measure_one("direct", args.config, overrides, server.env, server.process.pid)
        times: dict[str, list[float]] = {"direct": [], "prefect": []}
        for _ in range(args.repeats):
            for mode in ("direct", "prefect"):
                m = measure_one(mode, args.config, overrides, server.env, server.process.pid)
                times[mode].append(m["wall"])
                print(f"  {mode:<8} {m['wall']:7.1f} s wall; CPU s: run process {m['self']:.1f}, training and "
                      f"its children {m['children']:.1f}, Prefect server {m['server']:.1f}", flush=True)
                print("           process (s): " + ", ".join(f"{k} {v:.1f}" for k, v in m["spans"].items())
                      + "; work phases (s): " + ", ".join(f"{k} {v:.1f}" for k, v in m["phases"].items()))
    finally:
        server.stop()
    direct, prefect = statistics.median(times["direct"]), statistics.median(times["prefect"])
    pairs = [p - d for d, p in zip(times["direct"], times["prefect"])]
    print(f"config {args.config} {' '.join(overrides[1:])}; {args.repeats} repeat(s), medians:")
    print(f"  direct  {direct:7.1f} s\n  prefect {prefect:7.1f} s\n"
          f"  overhead {prefect - direct:+.1f} s = {100 * (prefect - direct) / direct:+.1f} % (target <= 3 %); "
          f"per pair (Prefect minus the direct run before it): {', '.join(f'{d:+.1f} s' for d in pairs)}")


def latency(args: argparse.Namespace) -> None:
    from prefect.settings import PREFECT_API_URL, temporary_settings

    from deployments.local_prefect import start_server, start_worker, stop_group
    from deployments.postgres import Cluster

    work = Path(tempfile.mkdtemp(prefix="rlvr-latency-"))
    work.chmod(0o755)  # PostgreSQL's own user (when we are root) must reach the cluster's folder
    training = None
    with contextlib.ExitStack() as cleanup:  # whatever fails, nothing started here outlives the benchmark
        cleanup.callback(shutil.rmtree, work, ignore_errors=True)
        cluster = Cluster(work / "postgres") if args.database == "postgres" else None
        if cluster is not None:
            cleanup.callback(cluster.stop)
        server = start_server(work / "prefect-home", database_url=cluster.ensure_running() if cluster else None)
        cleanup.callback(server.stop)
        env = {**server.env, "RLVR_EVAL_POOL": "rlvr-bench"}
        subprocess.run([sys.executable, "-m", "prefect", "--no-prompt", "work-pool", "create", "rlvr-bench", "--type",
                        "process", "--overwrite"], env=env, cwd=REPO, check=True, stdout=subprocess.DEVNULL)
        subprocess.run([sys.executable, "-m", "prefect", "--no-prompt", "deploy", "--name", "on-arrival"], env=env,
                       cwd=REPO, check=True, stdout=subprocess.DEVNULL)
        worker = start_worker(server, "rlvr-bench", work / "worker.log", REPO, {"RLVR_EVAL_POOL": "rlvr-bench"})
        cleanup.callback(stop_group, worker)
        if args.during_training:
            training = start_training(server.env, work)
            cleanup.callback(stop_group, training)
        with temporary_settings({PREFECT_API_URL: server.api_url}):
            latencies = measure_latencies(args.events, work, training)
    during = " while train-and-eval/tiny-arith trained" if training is not None else ""
    print(f"event -> eval-checkpoint running{during} (database {args.database}): median "
          f"{statistics.median(latencies):.2f} s, min {min(latencies):.2f} s, max {max(latencies):.2f} s over "
          f"{len(latencies)} events (target median <= 5 s, max <= 15 s)")


def start_training(env: dict[str, str], work: Path) -> subprocess.Popen:
    """`train-and-eval` of tiny-arith (long enough to outlast the events) in a process of its own, against the
    server; returns once its trainer has written a first step."""
    from deployments.local_prefect import stop_group
    from rlvr_core.config import load_config
    from rlvr_core.models.resolve import resolve_model_path
    from rlvr_core.storage import open_store
    from rlvr_core.rundir.layout import trace_path

    runs = work / "runs-training"
    overrides = [f"run.runs_dir={runs}", "training.max_steps=5000", "checkpointing.every_steps=25",
                 "evaluation.limit=16"]
    cfg = load_config("tiny-arith", overrides)
    print("building the tiny model (first use only)...", flush=True)
    resolve_model_path(cfg.model.name_or_path, open_store(cfg.storage.root, cfg.storage.endpoint_url))
    with open(work / "training.log", "w") as log:
        process = subprocess.Popen([sys.executable, __file__, "_run", "prefect", "tiny-arith", *overrides], cwd=REPO,
                                   env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    deadline = time.monotonic() + 600
    while not any(trace_path(run).exists() for run in runs.glob("*")):
        if process.poll() is not None or time.monotonic() > deadline:
            stop_group(process)
            raise RuntimeError("the training run did not start (or ended) before the events:\n"
                               + (work / "training.log").read_text()[-3000:])
        time.sleep(1)
    print("training is running; sending events", flush=True)
    return process


def measure_latencies(count: int, work: Path, training: subprocess.Popen | None = None) -> list[float]:
    from prefect.events import emit_event

    time.sleep(5)  # let the worker register and the trigger's automation load
    latencies = []
    for i in range(count):
        if training is not None and training.poll() is not None:
            raise RuntimeError("the training run ended before the events did: its figures would not be under load")
        path = f"{work}/runs/bench_{uuid.uuid4().hex[:8]}/checkpoints/step-{i:06d}"
        event = emit_event(event="rlvr.checkpoint.saved", resource={"prefect.resource.id": "rlvr.run.bench"},
                           payload={"path": path, "step": i, "run": "bench"})
        created, pending, started = wait_for_start(path, timeout_s=120)
        latencies.append((started - event.occurred).total_seconds())
        print(f"  event {i}: flow run created {(created - event.occurred).total_seconds():.2f} s, taken by the "
              f"worker (Pending) {(pending - event.occurred).total_seconds():.2f} s, Running {latencies[-1]:.2f} s "
              f"after the event", flush=True)
        time.sleep(2)
    return latencies


def wait_for_start(checkpoint: str, timeout_s: float):
    """(created, Pending, Running) times of the triggered run for `checkpoint`, once it runs."""
    from prefect import get_client
    from prefect.client.schemas.sorting import FlowRunSort

    deadline = time.monotonic() + timeout_s
    with get_client(sync_client=True) as client:
        while time.monotonic() < deadline:
            for run in client.read_flow_runs(sort=FlowRunSort.EXPECTED_START_TIME_DESC, limit=20):
                if run.parameters.get("checkpoint") == checkpoint and run.start_time is not None:
                    pending = min(s.timestamp for s in client.read_flow_run_states(run.id) if s.is_pending())
                    return run.created, pending, run.start_time
            time.sleep(0.5)  # a slower poll would blur the figures; a faster one loads the server it measures
    raise TimeoutError(f"no triggered run for {checkpoint} started within {timeout_s} s")


RESTART_TIMEOUT_S = 600


def restarts(args: argparse.Namespace) -> None:
    import httpx
    import yaml

    from deployments.local_prefect import free_port

    state = Path(tempfile.mkdtemp(prefix="rlvr-restarts-"))
    state.chmod(0o755)  # PostgreSQL's own user (when we are root) must reach the cluster's folder
    env = {**os.environ, "RLVR_PREFECT_STATE": str(state), "RLVR_PREFECT_PORT": str(free_port())}
    api = f"http://127.0.0.1:{env['RLVR_PREFECT_PORT']}/api"
    expected = sorted(d["name"] for d in yaml.safe_load((REPO / "prefect.yaml").read_text())["deployments"])
    print(f"state folder {state}, API {api}")
    seconds = []
    try:
        for attempt in range(1, args.times + 1):
            started = time.monotonic()
            up = subprocess.run(["make", "-s", "up"], cwd=REPO, env=env, capture_output=True, text=True,
                                timeout=RESTART_TIMEOUT_S)
            seconds.append(time.monotonic() - started)
            if up.returncode != 0:
                raise SystemExit(f"start {attempt}: make up failed ({up.returncode}):\n{(up.stdout + up.stderr)[-3000:]}")
            with httpx.Client(base_url=api, timeout=30) as client:
                assert client.get("/health").status_code == 200, f"start {attempt}: /health"
                deployments = client.post("/deployments/filter", json={"limit": 200}).json()
                automations = [a["name"] for a in client.post("/automations/filter", json={}).json()]
            got = sorted(d["name"] for d in deployments)
            assert got == expected, f"start {attempt}: deployments {got} != {expected}"
            assert len(automations) == len(set(automations)), f"start {attempt}: duplicated automations {automations}"
            print(f"  start {attempt}: make up {seconds[-1]:.1f} s, {len(deployments)} deployments, "
                  f"{len(automations)} automations", flush=True)
            down = subprocess.run(["make", "-s", "down"], cwd=REPO, env=env, capture_output=True, text=True,
                                  timeout=RESTART_TIMEOUT_S)
            if down.returncode != 0:
                raise SystemExit(f"stop {attempt}: make down failed:\n{(down.stdout + down.stderr)[-3000:]}")
    finally:
        subprocess.run(["make", "-s", "down"], cwd=REPO, env=env, capture_output=True, timeout=RESTART_TIMEOUT_S)
        shutil.rmtree(state, ignore_errors=True)
    print(f"{args.times} starts of make up over one database: all healthy; make up took median "
          f"{statistics.median(seconds):.1f} s, max {max(seconds):.1f} s")


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "_run":
        mode, config, overrides = sys.argv[2], sys.argv[3], sys.argv[4:]
        body_started = time.monotonic()
        result = (run_direct if mode == "direct" else run_prefect)(config, overrides)
        result["body"] = [body_started, time.monotonic()]
        own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        result["cpu_seconds"] = {"self": own.ru_utime + own.ru_stime, "children": children.ru_utime + children.ru_stime}
        print(json.dumps(result))
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    over = sub.add_parser("overhead", help="demo wall time through Prefect vs direct calls")
    over.add_argument("--config", default="tiny-arith")
    over.add_argument("--max-steps", type=int, default=None)
    over.add_argument("--override", action="append", default=[])
    over.add_argument("--repeats", type=int, default=1)
    lat = sub.add_parser("latency", help="event -> triggered eval flow run start")
    lat.add_argument("--events", type=int, default=5)
    lat.add_argument("--during-training", action="store_true",
                     help="send the events while a train-and-eval run of tiny-arith trains against the same server")
    lat.add_argument("--database", choices=("postgres", "sqlite"), default="postgres",
                     help="the server's database (default postgres, as make up runs it)")
    again = sub.add_parser("restarts", help="make up / make down over one database, several times in a row")
    again.add_argument("--times", type=int, default=10)
    args = parser.parse_args()
    {"overhead": overhead, "latency": latency, "restarts": restarts}[args.command](args)


if __name__ == "__main__":
    main()
