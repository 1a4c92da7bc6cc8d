"""`webextract`: offline generated web-extraction tasks (generator in `rlvr_core/envs/web/`).

Splits `train` (50 tasks per archetype and difficulty), `eval` (2 per cell:
the held-out split training selects checkpoints on) and `bench` (4 per
cell, for final numbers), never sharing a seed; see
`rlvr_core/envs/web/dataset.py`.
"""

from __future__ import annotations

from rlvr_core.problem import Problem
from rlvr_core.data.source import Source


def generate(split: str) -> list[Problem]:
    """The whole split in its fixed order; callers cut it with `limit`."""
    from rlvr_core.envs.web.dataset import generate_split

    return generate_split(split)


def version() -> str:
    """The generator's version and code digest (a cache written by another is generated again)."""
    from rlvr_core.envs.web.dataset import generator_version

    return generator_version()


WEBEXTRACT = Source(name="webextract", verifier="webextract", generate=generate,  # type: ignore[arg-type]
                    splits=("train", "eval", "bench"), version=version)
