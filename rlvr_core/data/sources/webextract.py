"""`webextract`: offline generated web-extraction tasks (generator in `rlvr_core/envs/web/`).

Splits `train` (100 tasks per archetype and difficulty) and `bench` (10 per
archetype and difficulty, 720 in all), never sharing a seed; see
`rlvr_core/envs/web/dataset.py`.
"""

from __future__ import annotations

from rlvr_core.data.schema import Problem
from rlvr_core.data.source import Source


def generate(split: str) -> list[Problem]:
    """The whole split in its fixed order; callers cut it with `limit`."""
    from rlvr_core.envs.web.dataset import generate_split

    return generate_split(split)


WEBEXTRACT = Source(name="webextract", verifier="webextract", generate=generate,  # type: ignore[arg-type]
                    splits=("train", "bench"))
