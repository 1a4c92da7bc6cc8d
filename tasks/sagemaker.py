"""SageMaker training jobs as Prefect tasks: submit once, then watch until the job ends.

Retries: `submit` is never retried (a launch that may have happened is not
repeated blindly; `--resume-from` continues a job instead). `watch` only
reads the job's status, so it is retried on transient API failures
(`SageMakerUnavailable`, an unreachable endpoint); polling starts over and
loses nothing.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any

from prefect import task
from prefect.logging import get_run_logger
from prefect.tasks import exponential_backoff

from orchestration.retry import retry_transient


class TrainingJobFailed(RuntimeError):
    """The SageMaker job ended Failed or Stopped; the message carries SageMaker's failure reason."""


@task(name="sagemaker-submit", task_run_name="submit-{config}", retries=0)
def submit_training_job(config: str, overrides: list[str], target: dict[str, Any], job: str | None = None,
                        resume_from: str | None = None) -> dict[str, Any]:
    """Validate the config, upload it and create the job; returns the job name and where its files go."""
    from rlvr_core.cloud.sagemaker import JobTarget, submit

    submission = submit(config, overrides, JobTarget(**target), job=job, resume_from=resume_from)
    get_run_logger().info("created SageMaker training job %s (config %s, checkpoints %s, output %s)",
                          submission.job, submission.config_uri, submission.checkpoint_uri, submission.output_uri)
    return dataclasses.asdict(submission)


@task(name="sagemaker-watch", task_run_name="watch-{job}", retries=3,
      retry_delay_seconds=exponential_backoff(backoff_factor=10), retry_jitter_factor=0.5,
      retry_condition_fn=retry_transient)
def watch_training_job(job: str, poll_seconds: float = 60.0, region: str | None = None,
                       endpoint_url: str | None = None) -> dict[str, Any]:
    """Poll until the job ends, logging each status change; returns the final status.

    Raises TrainingJobFailed when the job ends Failed or Stopped, so the flow
    run is not recorded Completed for a training that did not complete.
    """
    from rlvr_core.cloud.sagemaker import describe

    logger = get_run_logger()
    seen: tuple[str, str | None] | None = None
    while True:
        status = describe(job, region=region, endpoint_url=endpoint_url)
        if (status.status, status.secondary_status) != seen:
            seen = (status.status, status.secondary_status)
            logger.info("%s: %s (%s)", job, status.status, status.secondary_status)
        if status.final:
            break
        time.sleep(poll_seconds)
    if status.status != "Completed":
        raise TrainingJobFailed(f"SageMaker training job {job} ended {status.status}: "
                                f"{status.failure_reason or 'no failure reason given'}")
    logger.info("%s: model artifacts at %s", job, status.model_artifacts)
    return dataclasses.asdict(status)
