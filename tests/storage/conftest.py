import pytest

from rlvr_core.storage import Store

# The S3 fixtures live in tests/s3_server.py. Fixtures imported into a conftest
# are visible only below it; once the root conftest registers the module
# (`pytest_plugins = ["tests.s3_server"]`) this import can go.
from tests.s3_server import dead_endpoint, hung_endpoint, s3_bucket, s3_endpoint  # noqa: F401


@pytest.fixture(params=["local", "s3"])
def store(request: pytest.FixtureRequest, tmp_path) -> Store:
    """The same Store contract on a local folder and on an S3 bucket (moto server)."""
    if request.param == "local":
        return Store(str(tmp_path / "store"))
    endpoint = request.getfixturevalue("s3_endpoint")
    bucket = request.getfixturevalue("s3_bucket")
    return Store(f"s3://{bucket}/prefix", endpoint_url=endpoint)
