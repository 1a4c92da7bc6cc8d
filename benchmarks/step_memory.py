"""Peak memory of one GRPO update as the batch grows, with and without a micro-batch token budget.

    .venv/bin/python benchmarks/step_memory.py [--groups 4 16] [--budget 4000]

Each (groups, budget) pair runs one `PolicyTrainer.train_step` in a fresh process on an untrained
tiny model (groups of 4 rows, prompts and completions of up to 200 tokens each, prompts not shared)
and reports how far the step raised the process's peak resident memory. Without a budget the
growth follows the batch; with `training.micro_batch_tokens` it should stay about flat.
The deterministic property behind it (no forward pass exceeds the budget) is tested in
tests/grpo/test_trainer_microbatch.py.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path


def random_groups(count: int, seed: int = 0, group_size: int = 4, longest: int = 200) -> list:
    """Groups of random prompts and completions of varied length, each group with a reward spread."""
    import numpy as np

    from rlvr_core.grpo.batch import Group, Rollout
    from rlvr_core.problem import Problem

    rng = np.random.default_rng(seed)
    groups = []
    for g in range(count):
        prompt = [int(t) for t in rng.integers(3, 30, size=int(rng.integers(5, longest)))]
        rollouts = []
        for r in range(group_size):
            n = int(rng.integers(1, longest))
            rollouts.append(Rollout(prompt_token_ids=prompt, token_ids=[int(t) for t in rng.integers(3, 30, size=n)],
                                    logprobs=[float(x) for x in rng.uniform(-4, -0.1, size=n)], text="",
                                    finish_reason="stop", weight_version=0, reward=float(r % 2)))
        groups.append(Group(position=g, problem=Problem(str(g), "t", "", "", "math"), rollouts=rollouts))
    return groups


def one_step(model_dir: str, groups: int, budget: int | None) -> int:
    """Peak-RSS growth (KiB) of one update in this process."""
    import resource

    from rlvr_core.grpo.algo import get_algorithm
    from rlvr_core.grpo.algo.common import ClipSettings
    from rlvr_core.grpo.batch import build_train_batch
    from rlvr_core.grpo.trainer_actor import PolicyTrainer

    trainer = PolicyTrainer(model_dir, reference_path=model_dir, learning_rate=1e-4, weight_decay=0.0,
                            warmup_steps=0, max_steps=10, lr_schedule="constant", max_grad_norm=1.0,
                            grad_accum_steps=1, clip=ClipSettings(eps_low=0.2, eps_high=0.2, kl_beta=0.04),
                            seed=0, micro_batch_tokens=budget, share_prompts=False)
    batch = build_train_batch(random_groups(groups), get_algorithm("grpo"), max_new_tokens=200, pad_token_id=0,
                              skip_overlong=False)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    trainer.train_step(batch)
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--groups", type=int, nargs="+", default=[4, 16], help="batch sizes, in groups of 4 rows")
    parser.add_argument("--budget", type=int, default=4000, help="training.micro_batch_tokens to compare with none")
    parser.add_argument("--one", nargs=3, metavar=("MODEL", "GROUPS", "BUDGET"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        model_dir, groups, budget = args.one[0], int(args.one[1]), int(args.one[2]) or None
        print(json.dumps({"growth_kb": one_step(model_dir, groups, budget)}))
        return

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from generation import _untrained_tiny_model

    model_dir = _untrained_tiny_model(Path(tempfile.mkdtemp(prefix="bench-tiny-")))
    print(f"{'groups':>6} {'budget':>8} {'peak growth MB':>15}")
    for budget in (0, args.budget):
        for groups in args.groups:
            out = subprocess.run([sys.executable, __file__, "--one", str(model_dir), str(groups), str(budget)],
                                 capture_output=True, text=True, check=True)
            growth = json.loads(out.stdout.strip().splitlines()[-1])["growth_kb"]
            print(f"{groups:>6} {budget or 'none':>8} {growth / 1024:>15.0f}")


if __name__ == "__main__":
    main()
