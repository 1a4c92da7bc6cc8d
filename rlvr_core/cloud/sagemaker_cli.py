"""`rlvr sagemaker submit|describe|stop`: SageMaker training jobs from the shell.

Errors are one line each (a bad config: the config's own lines) and exit 2
for a bad input, 1 for a failed AWS call; boto3 is imported only by the
command that runs, so `--help` is instant.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys

EPILOG = """\
examples:
  rlvr sagemaker submit gsm8k --image 123456789012.dkr.ecr.us-east-1.amazonaws.com/rlvr-pipeline:gpu \\
      --role arn:aws:iam::123456789012:role/rlvr-sagemaker --s3 s3://my-bucket/rlvr --instance-type ml.g6e.12xlarge \\
      training.max_steps=200
  rlvr sagemaker describe gsm8k-20260101-120000
  rlvr sagemaker stop gsm8k-20260101-120000
  rlvr sagemaker submit gsm8k ... --resume-from gsm8k-20260101-120000   # continue a stopped or failed job

The image is the project's Dockerfile pushed to ECR; SageMaker starts it as
`python -m rlvr_core.cloud.sagemaker_entry`. Credentials and region come from
the AWS chain (environment, ~/.aws, instance role)."""


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="rlvr sagemaker", epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Run a config as a SageMaker training job. `submit` validates the config (before any AWS "
                    "call), uploads it resolved to <s3>/<job>/input/config/config.yaml and creates the job "
                    "(<config>-<YYYYmmdd-HHMMSS>); the run folder is synced to <s3>/<job>/checkpoints, so a "
                    "restarted job resumes; the final checkpoint and report files land in "
                    "<s3>/<job>/output/model.tar.gz.")
    aws = argparse.ArgumentParser(add_help=False)
    aws.add_argument("--region", help="AWS region (default: the AWS chain, e.g. AWS_DEFAULT_REGION)")
    aws.add_argument("--endpoint-url", help="SageMaker and S3 API endpoint stand-in (tests: a moto server)")
    commands = parser.add_subparsers(dest="command", required=True, metavar="{submit,describe,stop}")

    submit = commands.add_parser("submit", parents=[aws], help="validate a config and create a training job for it",
                                 description="Validate CONFIG with OVERRIDES, upload it and create the job; prints "
                                             "the job name and where its files go (JSON).")
    submit.add_argument("config", help="config file or name in configs/")
    submit.add_argument("overrides", nargs="*", help="dotted overrides, e.g. training.max_steps=200; also shown as "
                                                     "the job's hyperparameters")
    submit.add_argument("--image", required=True, help="the project's image URI in ECR")
    submit.add_argument("--role", required=True, help="execution role ARN (reads the image, reads/writes --s3)")
    submit.add_argument("--s3", required=True, metavar="S3_PREFIX", help="s3://bucket[/prefix] for job files")
    submit.add_argument("--instance-type", required=True,
                        help="one instance with two GPUs for the Qwen3 configs, e.g. ml.g6e.12xlarge")
    submit.add_argument("--volume-gb", type=int, default=200, help="disk for the run folder (default 200)")
    submit.add_argument("--max-runtime-hours", type=float, default=120.0,
                        help="SageMaker stops the job after this long (default 120, at most 672)")
    submit.add_argument("--job", help="job name (default <config>-<YYYYmmdd-HHMMSS>)")
    submit.add_argument("--resume-from", metavar="JOB", help="continue JOB's run from its checkpoints")

    for name, text in (("describe", "print a job's status, secondary status and failure reason"),
                       ("stop", "stop a running job (a finished one is left as it is)")):
        sub = commands.add_parser(name, parents=[aws], help=text, description=text[0].upper() + text[1:] + " (JSON).")
        sub.add_argument("job", help="training job name")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    from rlvr_core.cloud import sagemaker
    from rlvr_core.config import ConfigError
    from rlvr_core.storage import StorageError

    where = {"region": args.region, "endpoint_url": args.endpoint_url}
    try:
        if args.command == "submit":
            target = sagemaker.JobTarget(
                image_uri=args.image, role_arn=args.role, s3_prefix=args.s3, instance_type=args.instance_type,
                volume_gb=args.volume_gb, max_runtime_s=round(args.max_runtime_hours * 3600), **where)
            result: object = sagemaker.submit(args.config, args.overrides, target, job=args.job,
                                              resume_from=args.resume_from)
        elif args.command == "describe":
            result = sagemaker.describe(args.job, **where)
        else:
            result = sagemaker.stop(args.job, **where)
    except ConfigError as err:
        print(err, file=sys.stderr)
        return 2
    except (ValueError, sagemaker.SageMakerError, StorageError) as err:
        print(f"rlvr sagemaker: {err}", file=sys.stderr)
        return 2 if isinstance(err, ValueError) else 1
    print(json.dumps(dataclasses.asdict(result), indent=2))  # type: ignore[call-overload]
    return 0


if __name__ == "__main__":
    sys.exit(main())
