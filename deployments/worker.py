"""A Prefect process worker that says so when it dies: `make up` runs each worker under this supervisor.

Why: when a worker dies, the flow-run processes it started often die with it
(killed with it by the OOM killer or a container stop, or ended on their
way out), and the runs they were executing either stay Running until the heartbeat automation
crashes them (`deployments/zombies.py`) or end with Prefect's generic
"Execution was aborted by a termination signal / Python system exit call",
which does not say why. This supervisor starts `prefect worker start` as its
child and, once the worker has exited for any reason (killed, crashed, or
stopped), marks each run of its pool whose process on this machine is gone,
and which is not already final with a message of its own, Crashed with one
that names the worker, how it ended, and what to do.

    python deployments/worker.py --pool rlvr-cpu [--name NAME]

SIGTERM and SIGINT are passed on to the worker. `make down` cancels the
runs first, so a planned stop leaves nothing to mark.
"""

from __future__ import annotations

import argparse
import signal
import socket
import subprocess
import sys
from datetime import datetime, timedelta, timezone

ACTIVE = ("RUNNING", "PENDING", "CANCELLING")
# What Prefect's engine says when a signal or exit ends a run: says nothing of why.
GENERIC_CRASH_MESSAGES = ("Execution was aborted by a termination signal.",
                          "Execution was aborted by Python system exit call.",
                          "Execution was aborted by an interrupt signal.")
# A stopping worker terminates its runs' processes (SIGTERM, then SIGKILL after a grace period) before it exits:
# a run that crashed with a generic message this long before the worker's exit is taken to have died with it.
STOPPING_S = 60
# A run's process that is still there when its worker has exited may be on its way out (terminated with it, or
# killed with it by the OOM killer): each is looked at again every second for this long before it is left alone as
# a run that outlived its worker (a killed worker's flow-run process carries on and reports its own end).
DYING_S = 30


def how_it_ended(returncode: int) -> str:
    """How the worker process ended, as the state message says it (a worker told to stop exits 0)."""
    if returncode < 0:
        return f"killed by {signal.Signals(-returncode).name}"
    return "it was told to stop" if returncode == 0 else f"it exited with status {returncode}"


def mark_orphans(pool: str, worker: str, pid: int, ended: str, exited: datetime) -> tuple[list[str], int]:
    """Crash the runs of `pool` on this machine whose process is gone and whose state does not already say why;
    returns their names and how many active runs of the pool still have a live process here."""
    from prefect import get_client
    from prefect.client.schemas.filters import (
        FlowRunFilter,
        FlowRunFilterState,
        FlowRunFilterStateType,
        WorkPoolFilter,
        WorkPoolFilterName,
    )
    from prefect.client.schemas.objects import StateType
    from prefect.states import Crashed

    message = (f"its worker {worker} (pid {pid} on {socket.gethostname()}) stopped ({ended}) and the run's process "
               f"ended with it. Retry the run; a crashed eval-checkpoint run is taken over by "
               f"watch-checkpoints/catch-up")
    marked, alive = [], 0
    with get_client(sync_client=True) as client:
        runs = client.read_flow_runs(
            flow_run_filter=FlowRunFilter(state=FlowRunFilterState(type=FlowRunFilterStateType(
                any_=[StateType[s] for s in (*ACTIVE, "CRASHED")]))),
            work_pool_filter=WorkPoolFilter(name=WorkPoolFilterName(any_=[pool])))
        for run in runs:
            if not _ran_here_and_is_gone(run.infrastructure_pid):
                alive += _runs_here(run.infrastructure_pid) and not run.state.is_final()
                continue
            if run.state.is_final() and (run.state.message not in GENERIC_CRASH_MESSAGES
                                         or run.state.timestamp < exited - timedelta(seconds=STOPPING_S)):
                continue
            client.set_flow_run_state(run.id, Crashed(message=message), force=True)
            marked.append(run.name)
    return marked, alive


def mark_orphans_while_dying(pool: str, worker: str, pid: int, ended: str) -> list[str]:
    """`mark_orphans` until no active run of the pool has a live process here, or for `DYING_S` at most."""
    import time

    exited = datetime.now(timezone.utc)
    deadline = time.monotonic() + DYING_S
    marked, alive = mark_orphans(pool, worker, pid, ended, exited)
    while alive and time.monotonic() < deadline:
        time.sleep(1)
        more, alive = mark_orphans(pool, worker, pid, ended, exited)
        marked += more
    return marked


def _runs_here(infrastructure_pid: str | None) -> bool:
    host = str(infrastructure_pid or "").rpartition(":")[0]
    return bool(infrastructure_pid) and (not host or host in {socket.gethostname(), socket.getfqdn()})


def _ran_here_and_is_gone(infrastructure_pid: str | None) -> bool:
    from rlvr_core.rundir.atomic import pid_alive

    pid = str(infrastructure_pid).rpartition(":")[2]
    return _runs_here(infrastructure_pid) and pid.isdigit() and not pid_alive(int(pid))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python deployments/worker.py", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pool", required=True, help="the work pool to serve (process type)")
    parser.add_argument("--name", default=None, help="the worker's name (default: <host>-<pool>)")
    args = parser.parse_args(argv)
    name = args.name or f"{socket.gethostname()}-{args.pool}"
    worker = subprocess.Popen([sys.executable, "-m", "prefect", "worker", "start", "--pool", args.pool, "--type",
                               "process", "--name", name])
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda received, _frame: worker.send_signal(received))
    returncode = worker.wait()
    ended = how_it_ended(returncode)
    try:
        marked = mark_orphans_while_dying(args.pool, name, worker.pid, ended)
    except Exception as err:  # the server may be gone too (make down stops it after the workers)
        print(f"worker {name} {ended}; could not check its runs: {type(err).__name__}: {err}", file=sys.stderr)
        return returncode or 1
    print(f"worker {name} {ended}; " + (f"marked Crashed: {', '.join(marked)}" if marked else "no run left behind"),
          file=sys.stderr)
    return returncode


if __name__ == "__main__":
    sys.exit(main())
