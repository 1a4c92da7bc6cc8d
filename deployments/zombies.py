"""No zombie runs: crash flow runs that stop sending heartbeats or that no worker starts, and cancel what
`make down` orphans.

Why: a flow run whose process dies with its machine or worker stays Running
in the UI forever, and its claims keep other runs waiting. Flow runs started
by a worker send a `prefect.flow-run.heartbeat` event every
PREFECT_FLOWS_HEARTBEAT_FREQUENCY seconds (`make up` sets 30). The first
automation installed here is proactive: when a flow run has sent a heartbeat
and then neither another heartbeat nor a final state arrives within
`--within` seconds (default three heartbeats), it sets the run Crashed.

A run a worker took (Pending, or its Submitting sub-state) but never started
sends no heartbeat: when the worker dies in between, the run would stay
Pending until someone cancels it. The second automation crashes a run that
has not left Pending within `--pending-within` seconds (default 120: far more
than a live worker needs to start a process), saying its worker never started
it; a crashed `eval-checkpoint` run is then taken over by
`watch-checkpoints/catch-up`, and any other run can be retried.

    python deployments/zombies.py install [--within 90] [--pending-within 120]   # make up runs this
    python deployments/zombies.py cancel-active rlvr-cpu rlvr-gpu   # make down runs this
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import socket
import sys
import time
from datetime import timedelta

AUTOMATION_NAME = "rlvr: crash flow runs without heartbeats"
ORPHAN_AUTOMATION_NAME = "rlvr: crash flow runs no worker started"
PENDING_EVENTS = {"prefect.flow-run.Pending", "prefect.flow-run.Submitting"}
LEFT_PENDING = {f"prefect.flow-run.{state}" for state in ("Running", "Scheduled", "Late", "AwaitingRetry", "Paused",
                                                          "Cancelling")}
FINAL_EVENTS = {f"prefect.flow-run.{state}" for state in ("Completed", "Failed", "Cancelled", "Crashed")}
HEARTBEAT = "prefect.flow-run.heartbeat"
ACTIVE_STATES = ("RUNNING", "PENDING", "CANCELLING")


def zombie_automation(within_s: float):
    """The automation: after a heartbeat, expect another heartbeat or a final state within `within_s`, else Crash."""
    from prefect.automations import Automation
    from prefect.client.schemas.objects import StateType
    from prefect.events.actions import ChangeFlowRunState
    from prefect.events.schemas.automations import EventTrigger, Posture
    from prefect.events.schemas.events import ResourceSpecification

    return Automation(
        name=AUTOMATION_NAME,
        description="Marks a flow run Crashed when it stops sending heartbeats (its process or machine died).",
        trigger=EventTrigger(
            after={HEARTBEAT}, expect={HEARTBEAT, *FINAL_EVENTS},
            match=ResourceSpecification({"prefect.resource.id": ["prefect.flow-run.*"]}),
            for_each={"prefect.resource.id"}, posture=Posture.Proactive, threshold=1,
            within=timedelta(seconds=within_s)),
        actions=[ChangeFlowRunState(state=StateType.CRASHED,
                                    message=f"no heartbeat for {within_s:g} s: the flow run's process is gone "
                                            f"(worker stopped, machine restarted or out of memory)")],
    )


def orphan_automation(within_s: float):
    """The automation: a flow run that entered Pending and neither ran, ended nor went back to Scheduled within
    `within_s` is set Crashed (its worker stopped between taking it and starting its process)."""
    from prefect.automations import Automation
    from prefect.client.schemas.objects import StateType
    from prefect.events.actions import ChangeFlowRunState
    from prefect.events.schemas.automations import EventTrigger, Posture
    from prefect.events.schemas.events import ResourceSpecification

    return Automation(
        name=ORPHAN_AUTOMATION_NAME,
        description="Marks a flow run Crashed when it stays Pending: the worker that took it died before starting it.",
        trigger=EventTrigger(
            after=PENDING_EVENTS, expect={*PENDING_EVENTS, *LEFT_PENDING, *FINAL_EVENTS},
            match=ResourceSpecification({"prefect.resource.id": ["prefect.flow-run.*"]}),
            for_each={"prefect.resource.id"}, posture=Posture.Proactive, threshold=1,
            within=timedelta(seconds=within_s)),
        actions=[ChangeFlowRunState(state=StateType.CRASHED,
                                    message=f"its worker took it but never started it (Pending for {within_s:g} s): "
                                            f"the worker stopped or died. Retry the run, or start a worker for its "
                                            f"pool; a crashed eval-checkpoint run is taken over by "
                                            f"watch-checkpoints/catch-up")],
    )


def install(within_s: float, pending_within_s: float = 120.0) -> None:
    """Create the automations, replacing earlier ones of the same names (so `make up` can run any number of times)."""
    from prefect.automations import Automation

    for automation in (zombie_automation(within_s), orphan_automation(pending_within_s)):
        try:
            Automation.read(name=automation.name).delete()
        except ValueError:  # not there yet
            pass
        automation.create()
    print(f"automations installed: {AUTOMATION_NAME!r} (Crashed after {within_s:g} s without a heartbeat), "
          f"{ORPHAN_AUTOMATION_NAME!r} (Crashed after {pending_within_s:g} s in Pending)")


def stop_local_process(infrastructure_pid: str | None, grace_s: float = 10.0) -> bool:
    """SIGTERM, then SIGKILL, the process group of a flow run started on this machine; False if not here or gone.

    Why: a process worker starts each flow run in a session of its own, so stopping the worker leaves the
    flow-run process running (and heartbeating) with nobody to report its end.
    """
    if not infrastructure_pid:
        return False
    host, _, pid_text = str(infrastructure_pid).rpartition(":")
    if host and host not in {socket.gethostname(), socket.getfqdn()}:
        return False
    pid = int(pid_text)
    try:
        os.killpg(pid, signal.SIGTERM)
    except ProcessLookupError:
        return False
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline:
        try:
            os.killpg(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.2)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pid, signal.SIGKILL)
    return True


def cancel_active(pools: list[str]) -> int:
    """Set every Running/Pending/Cancelling flow run of `pools` to Cancelled and stop its process when it runs
    on this machine; returns how many runs were cancelled."""
    from prefect import get_client
    from prefect.client.schemas.filters import (
        FlowRunFilter,
        FlowRunFilterState,
        FlowRunFilterStateType,
        WorkPoolFilter,
        WorkPoolFilterName,
    )
    from prefect.client.schemas.objects import StateType
    from prefect.states import Cancelled

    with get_client(sync_client=True) as client:
        runs = client.read_flow_runs(
            flow_run_filter=FlowRunFilter(state=FlowRunFilterState(
                type=FlowRunFilterStateType(any_=[StateType[s] for s in ACTIVE_STATES]))),
            work_pool_filter=WorkPoolFilter(name=WorkPoolFilterName(any_=pools)))
        for run in runs:
            stopped = stop_local_process(run.infrastructure_pid)  # first: a dying engine would report Crashed
            client.set_flow_run_state(run.id, Cancelled(message="cancelled by `make down`: its worker was stopped"),
                                      force=True)
            print(f"cancelled flow run {run.name} ({run.id}), was {run.state_name}"
                  + (f"; stopped its process group {run.infrastructure_pid}" if stopped else ""))
    return len(runs)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python deployments/zombies.py", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    install_cmd = commands.add_parser("install", help="create (or replace) the zombie automation")
    install_cmd.add_argument("--within", type=float, default=90.0,
                             help="seconds without a heartbeat before a run is Crashed (>= 10; default 90)")
    install_cmd.add_argument("--pending-within", type=float, default=120.0,
                             help="seconds in Pending (taken by a worker, not started) before a run is Crashed "
                                  "(default 120)")
    cancel_cmd = commands.add_parser("cancel-active", help="cancel the active flow runs of these work pools")
    cancel_cmd.add_argument("pools", nargs="+")
    args = parser.parse_args(argv)
    if args.command == "install":
        install(args.within, args.pending_within)
    else:
        print(f"{cancel_active(args.pools)} active flow run(s) cancelled in {', '.join(args.pools)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
