"""The `sagemaker-submit` flow under a Prefect test harness, against moto's SageMaker and S3 APIs."""

from __future__ import annotations

import boto3

from flows.sagemaker_submit import sagemaker_submit
from rlvr_core.cloud.sagemaker import JobTarget


def run_flow(target: JobTarget, config: str, overrides: list[str], **params):
    return sagemaker_submit(config, target.image_uri, target.role_arn, target.s3_prefix, target.instance_type,
                            overrides=overrides, region=target.region, endpoint_url=target.endpoint_url,
                            poll_seconds=0.1, **params)


def test_the_flow_submits_and_follows_the_job_to_its_final_status(prefect_harness: str, target: JobTarget) -> None:
    result = run_flow(target, "tiny-arith", ["training.max_steps=5"])
    job = result["submission"]["job"]
    assert job.startswith("tiny-arith-") and result["status"]["status"] == "Completed"
    sent = boto3.client("sagemaker", endpoint_url=target.endpoint_url).describe_training_job(TrainingJobName=job)
    assert sent["HyperParameters"] == {"training.max_steps": "5"}


def test_without_wait_the_flow_returns_after_submitting(prefect_harness: str, target: JobTarget) -> None:
    result = run_flow(target, "tiny-arith", [], wait=False)
    assert result["status"] is None and result["submission"]["config_uri"].endswith("/input/config/config.yaml")


def test_a_bad_config_fails_the_flow_with_the_config_error(prefect_harness: str, target: JobTarget) -> None:
    state = run_flow(target, "tiny-arith", ["training.max_steps=-3"], return_state=True)
    assert state.is_failed() and "training.max_steps = -3" in state.message
    listed = boto3.client("s3", endpoint_url=target.endpoint_url).list_objects_v2(
        Bucket=target.s3_prefix.removeprefix("s3://").split("/")[0])
    assert listed["KeyCount"] == 0  # nothing uploaded
