"""One real local Ray cluster for all GRPO tests (starting one costs ~4 s), and a small tiny-arith config."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def ray_cluster():
    """A local Ray cluster shared by the session, closed as a trainer's own (loopback, the suite's token); returns
    its address so subprocess drivers can join it."""
    import ray

    from rlvr_core.grpo.cluster import start_private_cluster

    temp = Path(tempfile.mkdtemp(prefix="rlvr-ray-", dir="/tmp"))  # short: Ray's socket paths have a length limit
    start_private_cluster(num_cpus=4, temp_dir=temp)
    yield ray.get_runtime_context().gcs_address
    ray.shutdown()


@pytest.fixture
def tiny_config(tmp_path, trained_tiny_model_dir):
    """tiny-arith shrunk for tests: the warmed-up tiny model, few prompts, local folders under tmp_path."""
    from rlvr_core.config import load_config

    def make(*overrides: str):
        return load_config("tiny-arith", [
            f"model.name_or_path={trained_tiny_model_dir}", f"storage.root={tmp_path / 'store'}",
            f"run.runs_dir={tmp_path / 'runs'}", "sampling.prompts_per_step=4", "sampling.group_size=4",
            "training.max_steps=4", "training.eval_every=0", "checkpointing.every_steps=100",
            "training.torch_threads=1", "training.data_parallel=1", *overrides])
    return make
