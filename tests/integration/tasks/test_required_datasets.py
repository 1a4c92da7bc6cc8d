"""Which dataset splits a run caches before training: everything it will read, nothing twice."""

from pathlib import Path

from rlvr_core.config import load_config
from tasks.data import required_datasets

CONFIGS = Path(__file__).resolve().parents[3] / "configs"


def test_a_run_caches_its_training_data_held_out_set_and_benchmark_sets() -> None:
    config = load_config(CONFIGS / "tiny-arith.yaml", ["training.eval_every=5", "training.eval_split=test"])
    pairs = required_datasets(config)
    train = (config.data.train[0].name, config.data.train[0].split)
    assert pairs[0] == train
    assert (config.data.train[0].name, "test") in pairs
    assert len(pairs) == len(set(pairs))


def test_no_held_out_set_is_cached_when_in_loop_evaluation_is_off() -> None:
    config = load_config(CONFIGS / "ifeval.yaml")
    assert config.training.eval_every == 0
    assert ("allenai/RLVR-IFeval", "test") not in required_datasets(config)
    assert ("google/IFEval", "train") in required_datasets(config)
