# The Prefect fixtures live in tests/prefect_fixtures.py; once the root conftest registers it
# (`pytest_plugins = ["tests.prefect_fixtures"]`) this import can go.
from tests.prefect_fixtures import prefect_harness, prefect_server  # noqa: F401
