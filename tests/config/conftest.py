"""Config tests share one warm-up: the registries that validation imports lazily are loaded before any timing."""

from __future__ import annotations

import pytest

from tests.config.cli_answers import validate


@pytest.fixture(scope="session", autouse=True)
def warm_imports() -> None:
    """Import what validation imports lazily (dataset and benchmark registries), so timings measure validation."""
    validate("tiny-arith")
