"""Fail unless a deployment has scheduled flow runs: `python deployments/check_schedules.py FLOW/DEPLOYMENT`.

Why: a server whose scheduler silently stopped (SQLAlchemy 2.1 with Prefect
3.8.8 did this) accepts cron deployments but never creates their runs; this
check turns that into an error right after `prefect deploy`.
"""

from __future__ import annotations

import argparse
import sys
import time


def count_scheduled_runs(deployment_name: str) -> int:
    from prefect import get_client
    from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterState, FlowRunFilterStateType
    from prefect.client.schemas.objects import StateType

    with get_client(sync_client=True) as client:
        deployment = client.read_deployment_by_name(deployment_name)
        runs = client.read_flow_runs(
            flow_run_filter=FlowRunFilter(state=FlowRunFilterState(type=FlowRunFilterStateType(any_=[StateType.SCHEDULED]))),
            deployment_filter=_by_id(deployment.id),
        )
    return len(runs)


def _by_id(deployment_id):
    from prefect.client.schemas.filters import DeploymentFilter, DeploymentFilterId

    return DeploymentFilter(id=DeploymentFilterId(any_=[deployment_id]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("deployment", help="<flow-name>/<deployment-name>, e.g. baseline-eval/nightly")
    parser.add_argument("--timeout", type=float, default=90.0, help="seconds to wait for the scheduler")
    args = parser.parse_args(argv)
    deadline = time.monotonic() + args.timeout
    while True:
        count = count_scheduled_runs(args.deployment)
        if count:
            print(f"{args.deployment}: {count} scheduled run(s)")
            return 0
        if time.monotonic() > deadline:
            print(f"{args.deployment}: no scheduled runs after {args.timeout:.0f} s. The server's scheduler is not "
                  f"creating runs: check the server log and that sqlalchemy<2.1 is installed.", file=sys.stderr)
            return 1
        time.sleep(2)


if __name__ == "__main__":
    sys.exit(main())
