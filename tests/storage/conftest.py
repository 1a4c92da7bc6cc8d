import sys

import pytest

# The S3 fixtures live in tests/s3_server.py. Once the root conftest registers
# it (`pytest_plugins = ["tests.s3_server"]`) it is already imported and this
# is skipped; until then the fixtures are imported here.
if "tests.s3_server" not in sys.modules:
    from tests.s3_server import dead_endpoint, s3_bucket, s3_endpoint  # noqa: F401

from rlvr_core.storage import Store


@pytest.fixture(params=["local", "s3"])
def store(request: pytest.FixtureRequest, tmp_path) -> Store:
    """The same Store contract on a local folder and on an S3 bucket (moto server)."""
    if request.param == "local":
        return Store(str(tmp_path / "store"))
    endpoint = request.getfixturevalue("s3_endpoint")
    bucket = request.getfixturevalue("s3_bucket")
    return Store(f"s3://{bucket}/prefix", endpoint_url=endpoint)
