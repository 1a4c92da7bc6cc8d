"""Training config rules that protect experiments."""

from __future__ import annotations

import pytest

from rlvr_core.config import ConfigError, load_config


@pytest.mark.parametrize("sync_every,max_staleness", [(2, 0), (3, 1)])
def test_staleness_below_sync_interval_is_rejected(sync_every, max_staleness):
    with pytest.raises(ConfigError, match=f"max_staleness={max_staleness} is below sync_every - 1"):
        load_config("tiny-arith", [f"training.sync_every={sync_every}", f"training.max_staleness={max_staleness}"])


@pytest.mark.parametrize("sync_every,max_staleness", [(1, 0), (2, 1), (2, 3)])
def test_staleness_covering_the_sync_interval_is_accepted(sync_every, max_staleness):
    config = load_config("tiny-arith", [f"training.sync_every={sync_every}", f"training.max_staleness={max_staleness}"])
    assert config.training.max_staleness == max_staleness


def test_multi_gpu_trainer_is_refused_rather_than_faked():
    with pytest.raises(ConfigError, match="training.trainer_gpus"):
        load_config("tiny-arith", ["training.trainer_gpus=2"])
