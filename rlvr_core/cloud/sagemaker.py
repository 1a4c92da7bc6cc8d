"""Submit a config as a SageMaker training job, and describe or stop it, through boto3.

A submission validates the config first (a bad config fails with the
project's one-line error before any AWS call), uploads the resolved config
and creates the job. Per job, under the target's `s3_prefix`:

  <job>/input/config/config.yaml   the resolved config (as a run folder stores it): input channel `config`
  <job>/checkpoints/               synced with /opt/ml/checkpoints, which holds the run folder
  <job>/output/model.tar.gz        /opt/ml/model at the end: the final checkpoint and the report files

The overrides are also the job's hyperparameters (`{"training.max_steps":
"20"}`), so the console shows what differs from the config file; the
container applies them again, which changes nothing unless a cloned job
edits them. The container is the project's image (Dockerfile) pushed to ECR,
started as `python -m rlvr_core.cloud.sagemaker_entry` (see that module).

Resume: SageMaker restores /opt/ml/checkpoints when it restarts a job (spot
interruption), and `resume_from=<earlier job>` gives a new job the earlier
job's checkpoint URI, so it continues that run instead of starting over.

Where it stops: one instance per job (the trainer is not wired to span
instances); no spot training, VPC or custom KMS keys; no waiting here
(`describe` is one call; tasks/sagemaker.py polls).
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from rlvr_core.cloud.sagemaker_entry import CHECKPOINT_LOCAL_PATH, CONFIG_CHANNEL
from rlvr_core.storage import CONNECT_TIMEOUT_S, READ_TIMEOUT_S, TOTAL_ATTEMPTS, open_store

if TYPE_CHECKING:
    from rlvr_core.config import ExperimentConfig

CONTAINER_ENTRYPOINT = ["python", "-m", "rlvr_core.cloud.sagemaker_entry"]
FINAL_STATUSES = frozenset({"Completed", "Failed", "Stopped"})
MAX_JOB_NAME = 63  # SageMaker: ^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}
MAX_HYPERPARAMETERS = 100
MAX_HYPERPARAMETER_VALUE = 2500
MAX_RUNTIME_LIMIT_S = 28 * 24 * 3600
# Error codes a later attempt may not see again; everything else (validation, access) repeats.
_UNAVAILABLE_CODES = frozenset({"ThrottlingException", "ServiceUnavailable", "InternalFailure", "RequestTimeout",
                                "500", "502", "503", "504"})


class SageMakerError(RuntimeError):
    """A SageMaker call failed; the message is one line naming the job, the endpoint and what to do."""


class SageMakerUnavailable(SageMakerError, ConnectionError):
    """The API could not be reached or asked to slow down: a later attempt may succeed (tasks retry it)."""


@dataclass(frozen=True)
class JobTarget:
    """Where a job runs and keeps its files: everything a submission needs besides the config."""

    image_uri: str  # the project's image in ECR, e.g. 123456789012.dkr.ecr.us-east-1.amazonaws.com/rlvr-pipeline:gpu
    role_arn: str  # execution role: reads the image, reads and writes s3_prefix (and the store, if on S3)
    s3_prefix: str  # s3://bucket[/prefix]: config, checkpoints and model of each job go under <prefix>/<job>/
    instance_type: str  # needs two GPUs for the Qwen3 configs (trainer actor + rollout worker)
    volume_gb: int = 200  # the run folder (checkpoints with optimizer state) lives on this volume
    max_runtime_s: int = 5 * 24 * 3600  # SageMaker stops the job after this long
    region: str | None = None  # None: the AWS chain (AWS_DEFAULT_REGION, ~/.aws/config)
    endpoint_url: str | None = None  # an API stand-in (tests: moto); used for S3 too

    def __post_init__(self) -> None:
        problems = []
        if not re.fullmatch(r"s3://[a-z0-9][a-z0-9.\-]{1,61}[a-z0-9](/.*)?", self.s3_prefix):
            problems.append(f"s3_prefix={self.s3_prefix!r} is not an S3 URI. Fix: use s3://<bucket>[/<prefix>]")
        if not self.role_arn.startswith("arn:"):
            problems.append(f"role_arn={self.role_arn!r} is not an ARN. Fix: pass the execution role's ARN, "
                            "e.g. arn:aws:iam::123456789012:role/rlvr-sagemaker")
        if not self.image_uri:
            problems.append("image_uri is empty. Fix: push the project's image (Dockerfile) to ECR and pass its URI")
        if not self.instance_type.startswith("ml."):
            problems.append(f"instance_type={self.instance_type!r} is not a SageMaker instance type. "
                            "Fix: e.g. ml.g6e.12xlarge")
        if not 1 <= self.max_runtime_s <= MAX_RUNTIME_LIMIT_S or self.volume_gb < 1:
            problems.append(f"max_runtime_s={self.max_runtime_s}, volume_gb={self.volume_gb}: out of range. "
                            f"Fix: 1 <= max_runtime_s <= {MAX_RUNTIME_LIMIT_S} and volume_gb >= 1")
        if problems:
            raise ValueError("; ".join(problems))


@dataclass(frozen=True)
class Submission:
    """A created job and where its files are."""

    job: str
    arn: str
    config_uri: str
    checkpoint_uri: str
    output_uri: str
    hyperparameters: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class JobStatus:
    """What `describe` reports: SageMaker's status, its finer secondary status, and why a job failed."""

    job: str
    status: str  # InProgress, Completed, Failed, Stopping, Stopped
    secondary_status: str | None
    failure_reason: str | None
    model_artifacts: str | None  # s3://.../model.tar.gz once the job has written it

    @property
    def final(self) -> bool:
        return self.status in FINAL_STATUSES


def job_name(config: str, now: datetime | None = None) -> str:
    """`<config>-<YYYYmmdd-HHMMSS>` within SageMaker's rules (letters, digits, inner hyphens, 63 characters)."""
    stamp = f"{(now or datetime.now()):%Y%m%d-%H%M%S}"
    stem = re.sub(r"[^A-Za-z0-9]+", "-", Path(config).stem).strip("-") or "rlvr"
    return f"{stem[:MAX_JOB_NAME - len(stamp) - 1].rstrip('-')}-{stamp}"


def overrides_as_hyperparameters(overrides: Sequence[str]) -> dict[str, str]:
    """`["a.b=1"]` -> `{"a.b": "1"}`; ValueError when SageMaker could not hold them or order would matter.

    Hyperparameters are an unordered map, so two overrides of one field, or of
    a section and a field inside it, are refused: applied in another order
    they would mean something else.
    """
    params: dict[str, str] = {}
    for override in overrides:
        dotted, _, value = override.partition("=")
        dotted = dotted.strip()
        clash = next((k for k in params if k == dotted or k.startswith(f"{dotted}.") or dotted.startswith(f"{k}.")),
                     None)
        if clash is not None:
            raise ValueError(f"overrides {clash}=... and {override!r} overlap; hyperparameters have no order. "
                             "Fix: give each field once (and not both a section and a field inside it)")
        if len(value) > MAX_HYPERPARAMETER_VALUE:
            raise ValueError(f"override {dotted}: its value has {len(value)} characters; SageMaker takes "
                             f"{MAX_HYPERPARAMETER_VALUE}. Fix: put it into the config file")
        params[dotted] = value
    if len(params) > MAX_HYPERPARAMETERS:
        raise ValueError(f"{len(params)} overrides; SageMaker takes {MAX_HYPERPARAMETERS} hyperparameters. "
                         "Fix: put them into a config file that `extends:` this one")
    return params


def sagemaker_client(region: str | None = None, endpoint_url: str | None = None) -> Any:
    """A boto3 SageMaker client that fails in seconds on a dead endpoint (same budget as the store's S3)."""
    import boto3
    from botocore.config import Config
    from botocore.exceptions import NoRegionError

    config = Config(connect_timeout=CONNECT_TIMEOUT_S, read_timeout=READ_TIMEOUT_S,
                    retries={"total_max_attempts": TOTAL_ATTEMPTS, "mode": "standard"})
    try:
        return boto3.client("sagemaker", region_name=region, endpoint_url=endpoint_url, config=config)
    except NoRegionError:
        raise SageMakerError("no AWS region. Fix: pass --region or set AWS_DEFAULT_REGION") from None


def submit(config: str, overrides: Sequence[str], target: JobTarget, *, job: str | None = None,
           resume_from: str | None = None, now: datetime | None = None) -> Submission:
    """Validate `config` + `overrides`, upload the resolved config and create the training job.

    `job` defaults to `job_name(config)`; `resume_from` names an earlier job
    whose checkpoints this one continues. Raises ConfigError (bad config) or
    ValueError (overrides SageMaker cannot carry) before any AWS call, then
    StorageError (upload) or SageMakerError.
    """
    from rlvr_core.config import load_config

    resolved = load_config(config, list(overrides))
    hyperparameters = overrides_as_hyperparameters(overrides)
    name = job or job_name(config, now)
    client = sagemaker_client(target.region, target.endpoint_url)
    prefix = target.s3_prefix.rstrip("/")
    checkpoint_uri = f"{prefix}/{name}/checkpoints"
    if resume_from is not None:
        checkpoint_uri = _checkpoint_uri(client, resume_from, target.endpoint_url)
    store = open_store(prefix, target.endpoint_url)
    store.write_text(f"{name}/input/{CONFIG_CHANNEL}/config.yaml", resolved_yaml(resolved))
    config_prefix = store.uri(f"{name}/input/{CONFIG_CHANNEL}") + "/"
    with _errors("create", name, target.endpoint_url):
        created = client.create_training_job(
            TrainingJobName=name,
            AlgorithmSpecification={"TrainingImage": target.image_uri, "TrainingInputMode": "File",
                                    "ContainerEntrypoint": CONTAINER_ENTRYPOINT},
            RoleArn=target.role_arn,
            InputDataConfig=[{"ChannelName": CONFIG_CHANNEL, "InputMode": "File", "DataSource": {"S3DataSource": {
                "S3DataType": "S3Prefix", "S3Uri": config_prefix, "S3DataDistributionType": "FullyReplicated"}}}],
            OutputDataConfig={"S3OutputPath": prefix},
            # One instance: the trainer places its actors on one machine's GPUs.
            ResourceConfig={"InstanceType": target.instance_type, "InstanceCount": 1,
                            "VolumeSizeInGB": target.volume_gb},
            CheckpointConfig={"S3Uri": checkpoint_uri, "LocalPath": CHECKPOINT_LOCAL_PATH},
            HyperParameters=hyperparameters,
            StoppingCondition={"MaxRuntimeInSeconds": target.max_runtime_s},
            Tags=[{"Key": "rlvr:config", "Value": Path(config).stem}])
    return Submission(job=name, arn=created["TrainingJobArn"], config_uri=config_prefix + "config.yaml",
                      checkpoint_uri=checkpoint_uri, output_uri=f"{prefix}/{name}/output",
                      hyperparameters=hyperparameters)


def resolved_yaml(config: ExperimentConfig) -> str:
    """The resolved config as YAML, exactly as `rlvr_core.rundir.create` writes a run folder's config.yaml."""
    return yaml.safe_dump(config.model_dump(mode="json"), sort_keys=False)


def describe(job: str, *, region: str | None = None, endpoint_url: str | None = None) -> JobStatus:
    """The job's status now (one API call)."""
    client = sagemaker_client(region, endpoint_url)
    with _errors("describe", job, endpoint_url):
        found = client.describe_training_job(TrainingJobName=job)
    return JobStatus(job=job, status=found["TrainingJobStatus"], secondary_status=found.get("SecondaryStatus"),
                     failure_reason=found.get("FailureReason"),
                     model_artifacts=found.get("ModelArtifacts", {}).get("S3ModelArtifacts"))


def stop(job: str, *, region: str | None = None, endpoint_url: str | None = None) -> JobStatus:
    """Ask SageMaker to stop the job; returns its status after the request (Stopping, or already final).

    A job that already ended is returned as it is: SageMaker refuses to stop
    a finished job, and "stop it" has then already happened.
    """
    current = describe(job, region=region, endpoint_url=endpoint_url)
    if current.final:
        return current
    client = sagemaker_client(region, endpoint_url)
    with _errors("stop", job, endpoint_url):
        client.stop_training_job(TrainingJobName=job)
    return describe(job, region=region, endpoint_url=endpoint_url)


def _checkpoint_uri(client: Any, job: str, endpoint_url: str | None) -> str:
    with _errors("describe", job, endpoint_url):
        found = client.describe_training_job(TrainingJobName=job)
    uri = found.get("CheckpointConfig", {}).get("S3Uri")
    if not uri:
        raise SageMakerError(f"training job {job} has no checkpoint S3 URI to resume from. "
                             "Fix: resume from a job submitted by `rlvr sagemaker submit`")
    return uri


@contextlib.contextmanager
def _errors(action: str, job: str, endpoint_url: str | None) -> Iterator[None]:
    """Turn botocore failures into one-line SageMakerErrors (SageMakerUnavailable when a retry may help)."""
    from botocore.exceptions import BotoCoreError, ClientError, NoCredentialsError

    where = f"training job {job} (endpoint {endpoint_url or 'AWS default'})"
    try:
        yield
    except ClientError as exc:
        error = exc.response.get("Error", {})
        code = str(error.get("Code", "?"))
        message = " ".join(str(error.get("Message", "")).split())[:300]
        if code in _UNAVAILABLE_CODES:
            raise SageMakerUnavailable(f"could not {action} {where}: {code}: {message}. "
                                       "Fix: retry later; check the endpoint and region") from None
        fix = ("grant the caller's AWS identity the SageMaker permission" if "AccessDenied" in code
               else "check the job name, the region and the arguments the message names")
        raise SageMakerError(f"could not {action} {where}: {code}: {message}. Fix: {fix}") from None
    except NoCredentialsError:
        raise SageMakerError(f"could not {action} {where}: no AWS credentials. Fix: provide them through the "
                             "AWS chain (environment, ~/.aws, instance role)") from None
    except BotoCoreError as exc:
        raise SageMakerUnavailable(f"could not {action} {where}: {type(exc).__name__}: {exc}. "
                                   "Fix: check that the endpoint is reachable and the region is right") from None
