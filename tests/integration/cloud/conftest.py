"""A SageMaker job target on the session's moto server (tests/s3_server.py): a fresh bucket, fake role and image."""

from __future__ import annotations

import pytest

from rlvr_core.cloud.sagemaker import JobTarget

IMAGE = "123456789012.dkr.ecr.us-east-1.amazonaws.com/rlvr-pipeline:gpu"
ROLE = "arn:aws:iam::123456789012:role/rlvr-sagemaker"


@pytest.fixture
def target(s3_endpoint: str, s3_bucket: str) -> JobTarget:
    """Jobs go to the moto server; their files under s3://<fresh bucket>/jobs."""
    return JobTarget(image_uri=IMAGE, role_arn=ROLE, s3_prefix=f"s3://{s3_bucket}/jobs",
                     instance_type="ml.g6e.12xlarge", max_runtime_s=7200, region="us-east-1",
                     endpoint_url=s3_endpoint)
