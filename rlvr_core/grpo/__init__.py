"""GRPO training on Ray: loss registry (`algo/`), batch rules, trainer and rollout actors, the driver loop.

Library entry point: `train(config, run_dir=None, hooks=()) -> TrainResult`;
command line: `python -m rlvr_core.grpo.train CONFIG [overrides]`.
"""

from rlvr_core.grpo.driver import TrainResult, train

__all__ = ["TrainResult", "train"]
