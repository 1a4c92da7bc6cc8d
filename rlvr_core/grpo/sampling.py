"""What a rollout samples: each problem's prompt text, its stop strings, and the seed of every sample.

Prompt: `data.prompt_template` filled with the dataset's prompt text
(`Source.prompt_text`; MBPP shows its first assert, the benchmark prompt all three).

Stop strings: the dataset's own (`Source.stop`, MBPP's `[DONE]`) plus the
template's header on a new line. A template "Question: {prompt}\\nAnswer: ..."
stops at "\\nQuestion:": a base model that goes on to write a new question and
answer it is cut before it, so the math verifier (which reads the answer
anchored last) grades the answer to the problem asked. A template with no
`Word:` header before `{prompt}` (tiny-arith's "{prompt}\\n") adds none.
Multi-turn datasets are played by their environment, which has its own stops.

Seeds: sample s of the prompt at stream position p, generated for step t,
is drawn with `derive_seed(run.seed, t, p, s)`; a position is drawn at most
once per step, so no two samples of a run share a stream, and a resumed or
repeated run draws the same ones. `rollouts.jsonl` rows carry step, position
and sample, so any row's seed can be recomputed.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from rlvr_core.data.registry import resolve
from rlvr_core.problem import Problem
from rlvr_core.data.source import Source
from rlvr_core.envs.registry import environment_for
from rlvr_core.generation.base import derive_seed, derive_seeds

if TYPE_CHECKING:
    from rlvr_core.config import ExperimentConfig

SEEDING = ("sample s of the prompt at stream position p for step t: derive_seed(run.seed, t, p, s) "
           "(numpy SeedSequence, 63 bits); a multi-turn request: derive_seed(run.seed, t, its first position)")

_HEADER = re.compile(r"\w+:")  # "Question:", "Problem:", "User:": one word, then a colon
Item = tuple[int, Problem]  # (stream position, problem), as PromptStream.take hands them out


def source_of(problem: Problem) -> Source:
    return resolve(problem.source).source


def training_prompt(template: str, problem: Problem) -> str:
    """The text the policy continues: the template filled with the dataset's prompt text."""
    source = source_of(problem)
    return template.format(prompt=source.prompt_text(problem) if source.prompt_text else problem.prompt)


def stop_strings(template: str, source: Source) -> tuple[str, ...]:
    """The dataset's stop strings, then the template's header on a new line (see module docstring)."""
    prefix = template.format(prompt="\0").split("\0")[0]  # formatted, so `{{` reads as `{`
    header = prefix.rsplit("\n", 1)[-1].strip()
    return tuple(dict.fromkeys((*source.stop, *([f"\n{header}"] if _HEADER.fullmatch(header) else []))))


def sample_seeds(run_seed: int, step: int, positions: list[int], n: int) -> tuple[int, ...]:
    """One seed per sample, grouped by prompt like `SamplingParams.seeds`."""
    return tuple(derive_seeds([(run_seed, step, p, s) for p in positions for s in range(n)]))


def episode_seed(run_seed: int, step: int, positions: list[int]) -> int:
    """The seed of one multi-turn request (its environment loop derives the per-turn, per-row seeds from it)."""
    return derive_seed(run_seed, step, positions[0])


def plan_requests(template: str, items: list[Item]) -> list[tuple[str, tuple[str, ...], list[Item]]]:
    """One worker's items as (method, stop strings, items) requests: multi-turn problems as "episodes", the
    rest as "generate" requests, one per distinct stop set (a request shares one `SamplingParams`)."""
    episodes = [item for item in items if environment_for(item[1]) is not None]
    by_stop: dict[tuple[str, ...], list[Item]] = {}
    for item in items:
        if environment_for(item[1]) is None:
            by_stop.setdefault(stop_strings(template, source_of(item[1])), []).append(item)
    return [("generate", stop, chunk) for stop, chunk in by_stop.items()] + (
        [("episodes", (), episodes)] if episodes else [])


def rollout_settings(config: "ExperimentConfig") -> dict[str, Any]:
    """What `traces/rollout_settings.json` records: the template, each training dataset's stop strings (None
    for a multi-turn dataset: its environment's apply) and the seeding scheme."""
    from rlvr_core.envs.registry import ENVIRONMENTS

    template = config.data.prompt_template
    sources = {spec.name: resolve(spec.name).source for spec in config.data.train}
    return {
        "prompt_template": template,
        "stop": {name: None if source.name in ENVIRONMENTS else list(stop_strings(template, source))
                 for name, source in sources.items()},
        "seeding": SEEDING,
        "run_seed": config.run.seed,
    }
