"""Submit, describe and stop against moto's SageMaker and S3 APIs (a real HTTP endpoint on 127.0.0.1).

What moto 5.x offers, and so what these tests can show: CreateTrainingJob
stores the request as sent and DescribeTrainingJob returns it, with the job
Completed at once (no job ever runs, so InProgress is never seen).
StopTrainingJob is not implemented (the server answers 500), so the path
that sends it for a running job is not exercised here; `stop` on a finished
job and on an unknown one is.
"""

from __future__ import annotations

import re
import time
from datetime import datetime

import boto3
import pytest
import yaml

from rlvr_core.cli import main as rlvr
from rlvr_core.cloud.sagemaker import (CONTAINER_ENTRYPOINT, JobTarget, SageMakerError, SageMakerUnavailable,
                                       describe, job_name, stop, submit)
from orchestration.retry import is_transient
from rlvr_core.config import ConfigError, load_config

NOW = datetime(2026, 1, 1, 12, 0, 0)
OVERRIDES = ["training.max_steps=20", "sampling.group_size=4"]
SAGEMAKER_NAME = re.compile(r"^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}$")  # the API's rule for TrainingJobName


def test_submit_creates_the_job_with_its_channel_hyperparameters_and_checkpoints(target: JobTarget) -> None:
    done = submit("tiny-arith", OVERRIDES, target, now=NOW)
    job = "tiny-arith-20260101-120000"
    prefix = f"{target.s3_prefix}/{job}"
    assert done.job == job
    sent = boto3.client("sagemaker", endpoint_url=target.endpoint_url).describe_training_job(TrainingJobName=job)
    assert sent["InputDataConfig"] == [{"ChannelName": "config", "InputMode": "File", "DataSource": {"S3DataSource": {
        "S3DataType": "S3Prefix", "S3Uri": f"{prefix}/input/config/", "S3DataDistributionType": "FullyReplicated"}}}]
    assert sent["HyperParameters"] == {"training.max_steps": "20", "sampling.group_size": "4"}
    assert sent["CheckpointConfig"] == {"S3Uri": f"{prefix}/checkpoints", "LocalPath": "/opt/ml/checkpoints"}
    assert sent["AlgorithmSpecification"]["TrainingImage"] == target.image_uri
    assert sent["AlgorithmSpecification"]["ContainerEntrypoint"] == CONTAINER_ENTRYPOINT
    assert sent["RoleArn"] == target.role_arn
    assert sent["ResourceConfig"] == {"InstanceType": "ml.g6e.12xlarge", "InstanceCount": 1, "VolumeSizeInGB": 200}
    assert sent["OutputDataConfig"] == {"S3OutputPath": target.s3_prefix}
    assert sent["StoppingCondition"] == {"MaxRuntimeInSeconds": 7200}


def test_the_uploaded_config_is_the_resolved_config_and_loads_back(target: JobTarget, tmp_path) -> None:
    done = submit("tiny-arith", OVERRIDES, target, now=NOW)
    bucket, _, key = done.config_uri.removeprefix("s3://").partition("/")
    assert key == "jobs/tiny-arith-20260101-120000/input/config/config.yaml"
    body = boto3.client("s3", endpoint_url=target.endpoint_url).get_object(Bucket=bucket, Key=key)["Body"].read()
    expected = load_config("tiny-arith", OVERRIDES)
    assert yaml.safe_load(body) == expected.model_dump(mode="json")
    (tmp_path / "config.yaml").write_bytes(body)  # what the container loads
    assert load_config(tmp_path / "config.yaml").config_hash() == expected.config_hash()


def test_describe_returns_the_status_moto_reports(target: JobTarget) -> None:
    done = submit("tiny-arith", [], target, now=NOW)
    status = describe(done.job, region="us-east-1", endpoint_url=target.endpoint_url)
    assert (status.status, status.secondary_status, status.failure_reason) == ("Completed", "Completed", None)
    assert status.final
    assert status.model_artifacts == f"{target.s3_prefix}/{done.job}/output/model.tar.gz"


def test_describe_of_an_unknown_job_is_one_line_naming_it(target: JobTarget) -> None:
    with pytest.raises(SageMakerError, match=r"could not describe training job no-such-job .*ValidationException: "
                                             r"Could not find training job") as err:
        describe("no-such-job", endpoint_url=target.endpoint_url)
    assert "\n" not in str(err.value) and not is_transient(err.value)


def test_stop_leaves_a_finished_job_as_it_is(target: JobTarget) -> None:
    done = submit("tiny-arith", [], target, now=NOW)  # moto jobs are Completed at once; SageMaker refuses to stop them
    assert stop(done.job, endpoint_url=target.endpoint_url).status == "Completed"


def test_stop_of_an_unknown_job_fails_naming_it(target: JobTarget) -> None:
    with pytest.raises(SageMakerError, match="could not describe training job gone-job .*Could not find"):
        stop("gone-job", endpoint_url=target.endpoint_url)


def test_resume_from_gives_the_new_job_the_earlier_jobs_checkpoints(target: JobTarget) -> None:
    first = submit("tiny-arith", [], target, now=NOW)
    second = submit("tiny-arith", ["training.max_steps=400"], target, resume_from=first.job,
                    now=datetime(2026, 1, 2, 8, 0, 0))
    sent = boto3.client("sagemaker", endpoint_url=target.endpoint_url).describe_training_job(TrainingJobName=second.job)
    assert sent["CheckpointConfig"]["S3Uri"] == first.checkpoint_uri == f"{target.s3_prefix}/{first.job}/checkpoints"


@pytest.mark.parametrize("overrides, error, message", [
    (["training.max_steps=-3"], ConfigError, r"training\.max_steps = -3"),
    (["training.max_steps=5", "training.max_steps=6"], ValueError, "overlap; hyperparameters have no order"),
    (["training={max_steps: 5}", "training.learning_rate=0.001"], ValueError, r"training=\.\.\. and .*overlap"),
])
def test_a_bad_config_fails_before_any_aws_call(overrides, error, message, s3_endpoint, dead_endpoint) -> None:
    # Any AWS call would hit a refused port and raise a storage or SageMaker error instead.
    target = JobTarget(image_uri="img", role_arn="arn:aws:iam::1:role/r", s3_prefix="s3://bucket/p",
                       instance_type="ml.g6e.12xlarge", endpoint_url=dead_endpoint)
    with pytest.raises(error, match=message):
        submit("tiny-arith", overrides, target)


def test_an_unreachable_api_fails_in_seconds_as_a_transient_error(s3_endpoint, dead_endpoint) -> None:
    start = time.monotonic()
    with pytest.raises(SageMakerUnavailable, match=f"endpoint {dead_endpoint}.*Fix: check that the endpoint"):
        describe("any-job", region="us-east-1", endpoint_url=dead_endpoint)
    assert time.monotonic() - start < 15 and is_transient(SageMakerUnavailable("x"))


@pytest.mark.parametrize("config, expected", [
    ("tiny-arith", "tiny-arith-20260101-120000"),
    ("configs/My_Config.v2.yaml", "My-Config-v2-20260101-120000"),
    ("__.yaml", "rlvr-20260101-120000"),
    ("x" * 80, "x" * 47 + "-20260101-120000"),
])
def test_job_names_follow_sagemakers_rule(config: str, expected: str) -> None:
    assert job_name(config, NOW) == expected and SAGEMAKER_NAME.match(expected)


def test_a_bad_target_names_each_problem_and_its_fix() -> None:
    with pytest.raises(ValueError, match=r"s3_prefix='bucket/p' is not an S3 URI.*role_arn='admin' is not an ARN"):
        JobTarget(image_uri="img", role_arn="admin", s3_prefix="bucket/p", instance_type="ml.g5.xlarge")


def test_cli_submits_and_describes(target: JobTarget, capsys) -> None:
    aws = ["--region", "us-east-1", "--endpoint-url", target.endpoint_url]
    assert rlvr(["sagemaker", "submit", "tiny-arith", "training.max_steps=5", "--image", target.image_uri,
                 "--role", target.role_arn, "--s3", target.s3_prefix, "--instance-type", "ml.g6e.12xlarge",
                 "--job", "cli-job", *aws]) == 0
    assert '"job": "cli-job"' in capsys.readouterr().out
    assert rlvr(["sagemaker", "describe", "cli-job", *aws]) == 0
    assert '"status": "Completed"' in capsys.readouterr().out


def test_cli_reports_a_bad_config_in_one_line_and_exits_2(target: JobTarget, capsys) -> None:
    assert rlvr(["sagemaker", "submit", "tiny-arith", "training.max_steps=-3", "--image", "img", "--role",
                 target.role_arn, "--s3", target.s3_prefix, "--instance-type", "ml.g6e.12xlarge"]) == 2
    err = capsys.readouterr().err
    assert "training.max_steps = -3" in err and len(err.strip().splitlines()) == 1
