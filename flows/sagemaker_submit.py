"""`sagemaker-submit`: run a config as a SageMaker training job and follow it to its end."""

from __future__ import annotations

from typing import Any

from prefect import flow

from tasks.sagemaker import submit_training_job, watch_training_job


@flow(name="sagemaker-submit", log_prints=True)
def sagemaker_submit(config: str, image_uri: str, role_arn: str, s3_prefix: str, instance_type: str,
                     overrides: list[str] | None = None, resume_from: str | None = None, volume_gb: int = 200,
                     max_runtime_hours: float = 120.0, wait: bool = True, poll_seconds: float = 60.0,
                     region: str | None = None, endpoint_url: str | None = None) -> dict[str, Any]:
    """Submit `config` (+ `overrides`) as a job; with `wait`, poll it until it ends (Failed/Stopped fail the run).

    Parameters are those of `rlvr sagemaker submit` (see its --help): the
    image is the project's image in ECR, `s3_prefix` receives each job's
    config, checkpoints and model; `resume_from` continues an earlier job.
    """
    target = {"image_uri": image_uri, "role_arn": role_arn, "s3_prefix": s3_prefix, "instance_type": instance_type,
              "volume_gb": volume_gb, "max_runtime_s": round(max_runtime_hours * 3600), "region": region,
              "endpoint_url": endpoint_url}
    submission = submit_training_job(config, overrides or [], target, resume_from=resume_from)
    if not wait:
        return {"submission": submission, "status": None}
    status = watch_training_job(submission["job"], poll_seconds, region, endpoint_url)
    return {"submission": submission, "status": status}
