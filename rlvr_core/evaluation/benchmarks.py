"""The benchmark registry: dataset + split + prompt template + verifier + decoding limits.

A benchmark fixes everything that changes its score except the model, so two
numbers under the same benchmark name are comparable. Scoring goes through the
project's verifiers (`Problem.verifier`); `filters` are named views of a
completion that lm-eval reports side by side (GSM8K "strict-match" reads only
"The answer is N.", "flexible-extract" the last number). The first filter is
the primary metric and the per-item reward.

Why MATH uses Minerva 4-shot + `\\boxed{}` + the symbolic math verifier: the
string-matching `hendrycks_math` task underrates base models by more than half.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from rlvr_core.problem import Problem
from rlvr_core.data.sources import mbpp
from rlvr_core.evaluation import prompts

Filter = Callable[[str], str]
_STRICT = re.compile(r"The answer is (-?[0-9.,]+)")
_NUMBER = re.compile(r"-?[$0-9.,]{2,}|-?[0-9]+")


def identity(completion: str) -> str:
    return completion


def _as_final_answer(number: str | None) -> str:
    """A number in GSM8K `#### N` form (what the math verifier reads), or "" when there is none."""
    if number is None:
        return ""
    cleaned = number.replace("$", "").replace(",", "").rstrip(".")
    return f"#### {cleaned}" if cleaned and cleaned != "-" else ""


def gsm8k_strict(completion: str) -> str:
    """lm-eval gsm8k_cot "strict-match": only an explicit "The answer is N" counts."""
    match = _STRICT.search(completion)
    return _as_final_answer(match.group(1) if match else None)


def gsm8k_flexible(completion: str) -> str:
    """lm-eval gsm8k_cot "flexible-extract": the last number anywhere in the completion."""
    numbers = _NUMBER.findall(completion)
    return _as_final_answer(numbers[-1] if numbers else None)


@dataclass(frozen=True)
class Benchmark:
    """One standard evaluation.

    `scoring="filters"` verifies each named filter's view of the completion;
    `scoring="instructions"` scores IFEval-style prompts per instruction,
    strict and loose (see `scoring.py`). `expected_size` is the documented
    item count, reported next to `n` so a truncated run is obvious.

    Multi-turn benchmarks name a `rollout` ("module:function" taking the
    backend, the problems and the sampling settings, returning one completion
    record per problem, whole episode included) instead of one generation per
    prompt; `rollout_settings` (the episode limits) enter the evaluation key,
    so a change of limits is a new evaluation. `policies` maps a `--backend`
    name to a scripted policy ("module:Class") that stands in for a model,
    e.g. the webextract oracle.
    """

    name: str
    dataset: str
    split: str
    prompt: Callable[[Problem], str]
    max_new_tokens: int
    description: str
    stop: tuple[str, ...] = ()
    filters: tuple[tuple[str, Filter], ...] = (("accuracy", identity),)
    scoring: Literal["filters", "instructions"] = "filters"
    expected_size: int | None = None
    offline: bool = False
    rollout: str | None = None
    rollout_settings: Mapping[str, Any] | None = None
    policies: Mapping[str, str] = field(default_factory=dict)
    problem_view: Callable[[Problem], Problem] | None = None

    @property
    def primary_metric(self) -> str:
        return "prompt_level_strict_acc" if self.scoring == "instructions" else self.filters[0][0]


_BENCHMARKS: dict[str, Benchmark] = {}


def register_benchmark(benchmark: Benchmark, *, replace: bool = False) -> None:
    """Add a benchmark; re-registering a name needs `replace=True`."""
    if benchmark.name in _BENCHMARKS and not replace:
        raise ValueError(f"benchmark {benchmark.name!r} is already registered; pass replace=True to override it")
    _BENCHMARKS[benchmark.name] = benchmark


def benchmark_names() -> list[str]:
    return sorted(_BENCHMARKS)


def get_benchmark(name: str) -> Benchmark:
    """The registered benchmark, or ValueError listing the known names."""
    if name not in _BENCHMARKS:
        raise ValueError(f"unknown benchmark {name!r}. Fix: use one of {benchmark_names()}")
    return _BENCHMARKS[name]


def _webextract_limits() -> dict[str, Any]:
    """The episode limits and a digest of the system prompt: both part of the evaluation key."""
    import hashlib

    from rlvr_core.envs.web.env import EpisodeLimits, WebExtractEnv

    limits = EpisodeLimits()
    prompt = WebExtractEnv.system_prompt(limits)
    return {**limits.to_dict(), "system_prompt_sha256": hashlib.sha256(prompt.encode()).hexdigest()[:16]}


def load_benchmark_problems(benchmark: Benchmark, *, store, limit: int | None = None) -> list[Problem]:
    """The benchmark's items in their fixed order (the first `limit` of them)."""
    from rlvr_core.data.loader import load_problems
    from rlvr_core.evaluation import sources  # noqa: F401  (registers IFEval / MATH-500)

    problems = load_problems(benchmark.dataset, benchmark.split, store=store, limit=limit)
    return [benchmark.problem_view(p) for p in problems] if benchmark.problem_view else problems


for _benchmark in (
    Benchmark(
        name="arith",
        dataset="arith",
        split="test",
        prompt=prompts.arith_prompt,
        max_new_tokens=8,
        description="Offline two-digit addition; the tiny model's task (prompt '{prompt}\\n', answer '#### N').",
        offline=True,
    ),
    Benchmark(
        name="gsm8k",
        dataset="openai/gsm8k",
        split="test",
        prompt=prompts.gsm8k_cot_prompt,
        max_new_tokens=256,
        stop=("Q:", "</s>", "<|im_end|>", "\n\n"),
        filters=(("flexible_extract", gsm8k_flexible), ("strict_match", gsm8k_strict)),
        expected_size=1319,
        description="GSM8K test, 8-shot chain of thought (Wei et al. 2022), lm-eval gsm8k_cot filters.",
    ),
    Benchmark(
        name="math",
        dataset="EleutherAI/hendrycks_math",
        split="test",
        prompt=prompts.math_minerva_prompt,
        max_new_tokens=1024,
        stop=("Problem:",),
        expected_size=5000,
        description="MATH test (7 subjects), Qwen-style Minerva 4-shot CoT, \\boxed{} + symbolic check.",
    ),
    Benchmark(
        name="math500",
        dataset="HuggingFaceH4/MATH-500",
        split="test",
        prompt=prompts.math_minerva_prompt,
        max_new_tokens=1024,
        stop=("Problem:",),
        expected_size=500,
        description="MATH-500 subset, same prompt and checking as `math`.",
    ),
    Benchmark(
        name="ifeval",
        dataset="google/IFEval",
        split="train",
        prompt=prompts.raw_prompt,
        max_new_tokens=1280,
        scoring="instructions",
        expected_size=541,
        description="IFEval, zero-shot; strict and loose, prompt and instruction level.",
    ),
    Benchmark(
        name="ifbench",
        dataset="allenai/IFBench_test",
        split="train",
        prompt=prompts.raw_prompt,
        max_new_tokens=1280,
        scoring="instructions",
        expected_size=300,
        description="IFBench (out-of-distribution constraints), zero-shot; strict and loose.",
    ),
    Benchmark(
        name="webextract",
        dataset="webextract",
        split="bench",
        prompt=prompts.raw_prompt,
        max_new_tokens=1024,
        filters=(("reward", identity),),
        expected_size=612,
        description="Web extraction with tools (run_python + BeautifulSoup, navigate), multi-turn; 51 archetypes x 3 "
                    "difficulties x 4 seeds (bench split), low order-aware partial credit, abstention, proof of "
                    "reading, a negative reward for following injected instructions.",
        offline=True,
        rollout="rlvr_core.envs.web.rollout:rollout",
        rollout_settings=_webextract_limits(),
        policies={"webextract-oracle": "rlvr_core.envs.web.oracle:OraclePolicy",
                  "webextract-abstain": "rlvr_core.envs.web.oracle:AbstainPolicy"},
    ),
    Benchmark(
        name="mbpp",
        dataset="google-research-datasets/mbpp",
        split="test",
        prompt=prompts.mbpp_prompt,
        max_new_tokens=512,
        stop=mbpp.MBPP.stop,
        filters=(("pass_at_1", identity),),
        expected_size=500,
        description="MBPP test, lm-eval 3-shot [BEGIN]/[DONE] format, graded on its official asserts.",
        problem_view=mbpp.official_tests_only,
    ),
    Benchmark(
        name="mbpp_extended",
        dataset="google-research-datasets/mbpp",
        split="test",
        prompt=prompts.mbpp_prompt,
        max_new_tokens=512,
        stop=mbpp.MBPP.stop,
        filters=(("pass_at_1", identity),),
        expected_size=500,
        description="MBPP test as `mbpp`, graded on the official, challenge and hidden asserts together (hidden: "
                    "generated from the reference solution on mutated inputs, as MBPP+).",
    ),
):
    register_benchmark(_benchmark)
