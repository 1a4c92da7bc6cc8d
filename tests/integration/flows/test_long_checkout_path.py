"""`make demo` from a checkout whose absolute path is 120 characters long.

Ray's unix sockets live ~72 characters below its temp folder and AF_UNIX paths stop at 107 bytes; with the
temp folder inside the checkout (`<checkout>/.rlvr/ray`) any checkout path over ~36 characters broke
`ray.init`. CI clones into short paths, so only a test that builds a long one sees this. The demo runs
here exactly as `make demo` runs it (`python -m flows.demo` with the Makefile's environment), from a working
folder of 120 characters holding everything the demo writes (`.rlvr/store`, `.rlvr/runs`, Prefect's state),
with the warmed-up tiny model copied into its store so the run is short.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.conftest import TEST_CACHE

pytestmark = pytest.mark.slow
CHECKOUT_LENGTH = 120
MAKE_ENV = {"HF_HUB_OFFLINE": "1", "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
            "TOKENIZERS_PARALLELISM": "false", "PREFECT_LOGGING_EXTRA_LOGGERS": "rlvr_core"}


def long_folder(length: int) -> Path:
    """A fresh real folder (no symlink: the kernel would report its short target as the working folder) whose
    absolute path is exactly `length` characters."""
    base = Path(tempfile.mkdtemp(prefix="rlvr-long-", dir="/tmp"))
    path = base / "home" / "alice-researcher" / "projects"
    path = path / ("rlvr-pipeline-checkout-" + "x" * (length - len(str(path)) - len("/rlvr-pipeline-checkout-")))
    path.mkdir(parents=True)
    assert len(str(path)) == length
    return path


@pytest.fixture
def checkout() -> Path:
    folder = long_folder(CHECKOUT_LENGTH)
    shutil.copytree(TEST_CACHE / "store" / "models", folder / ".rlvr" / "store" / "models")
    yield folder
    shutil.rmtree(str(folder).split("/home/")[0], ignore_errors=True)


def test_the_demo_trains_and_evaluates_from_a_120_character_checkout_path(checkout: Path,
                                                                         trained_tiny_model_dir: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PREFECT_", "RAY_", "RLVR_"))}
    env.update(MAKE_ENV)
    done = subprocess.run(
        [sys.executable, "-m", "flows.demo", "--max-steps", "2", "--no-base", "--override", "training.eval_every=0",
         "--override", "evaluation.limit=20"],
        cwd=checkout, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, (done.stdout + done.stderr)[-4000:]
    runs = list((checkout / ".rlvr" / "runs").iterdir())
    assert len(runs) == 1, runs
    manifest = json.loads((runs[0] / "checkpoints" / "step-000002" / "checkpoint.json").read_text())
    assert manifest["step"] == 2
    summary = json.loads(next((runs[0] / "evals").rglob("summary.json")).read_text())
    assert summary["n"] == 20
