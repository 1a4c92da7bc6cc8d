"""What a rollout samples: per-sample seeds, the dataset's prompt text (MBPP asserts) and its stop strings.

The seeding tests sample from the real warmed-up tiny model through the hf backend the rollout workers use.
"""

from __future__ import annotations

import json
import random
from dataclasses import replace

import pytest

from rlvr_core.config import load_config
from rlvr_core.data.registry import register_source, resolve, unregister_source
from rlvr_core.data.source import RowContext, Source
from rlvr_core.data.sources import mbpp
from rlvr_core.evaluation import get_benchmark
from rlvr_core.generation import SamplingParams, create_backend
from rlvr_core.generation.base import derive_seed, derive_seeds
from rlvr_core.grpo.sampling import sample_seeds, stop_strings, training_prompt

PROMPT = "What is 47 + 38?\n"
N = 8


@pytest.fixture(scope="module")
def backend(trained_tiny_model_dir):
    backend = create_backend("hf", str(trained_tiny_model_dir), device="cpu", batch_size=64)
    yield backend
    backend.close()


def _completions(backend, prompts: list[str], seeds: tuple[int, ...]) -> list[list[list[int]]]:
    gens = backend.generate(prompts, SamplingParams(max_new_tokens=8, n=N, seeds=seeds))
    return [[g.token_ids for g in gens[i * N:(i + 1) * N]] for i in range(len(prompts))]


def test_every_sample_of_a_step_gets_its_own_seed():
    seeds = sample_seeds(run_seed=0, step=3, positions=[10, 11, 12], n=N)
    assert len(set(seeds)) == 3 * N  # sample i of one prompt never shares prompt j's sample-i seed


@pytest.mark.parametrize("keys", [4, 3, 1, 6])
def test_seeds_computed_together_are_numpys_seed_sequence_for_each_row(keys):
    rng = random.Random(keys)
    edges = [0, 1, 2**32 - 1]
    rows = [tuple(rng.choice([*edges, rng.randrange(2**32), rng.randrange(100)]) for _ in range(keys))
            for _ in range(500)]
    assert derive_seeds(rows) == [derive_seed(*row) for row in rows]
    assert derive_seeds([(2**40, 1), (3,)]) == [derive_seed(2**40, 1), derive_seed(3)]  # not vectorisable: one by one
    assert sample_seeds(5, 2, [7, 9], N) == tuple(derive_seed(5, 2, p, s) for p in (7, 9) for s in range(N))


def test_seeds_are_reproducible_for_the_same_run_seed_and_change_with_it_and_the_step():
    assert sample_seeds(7, 3, [10, 11], N) == sample_seeds(7, 3, [10, 11], N)
    assert not set(sample_seeds(7, 3, [10, 11], N)) & set(sample_seeds(8, 3, [10, 11], N))
    assert not set(sample_seeds(7, 3, [10, 11], N)) & set(sample_seeds(7, 4, [10, 11], N))


def test_the_same_prompt_at_two_positions_of_one_batch_samples_two_different_streams(backend):
    first, second = _completions(backend, [PROMPT, PROMPT], sample_seeds(0, 1, [0, 1], N))
    assert first != second
    # Given the same seeds, the two rows would have drawn the same: the difference is the seeds'.
    same = sample_seeds(0, 1, [0], N)
    assert _completions(backend, [PROMPT, PROMPT], same + same) == [first, first]


def test_a_sample_is_reproduced_by_its_seed_whatever_its_batch_mates(backend):
    seeds = sample_seeds(0, 2, [5, 6], N)
    together = _completions(backend, ["What is 12 + 30?\n", PROMPT], seeds)
    alone = _completions(backend, [PROMPT], seeds[N:])
    assert together[1] == alone[0]


def _mbpp_problem():
    row = {"task_id": 11, "text": "Write a python function to remove first and last occurrence of a given character.",
           "code": "def remove_Occ(s, ch): ...", "test_setup_code": "",
           "test_list": ['assert remove_Occ("hello","l") == "heo"', 'assert remove_Occ("abcda","a") == "bcd"',
                         'assert remove_Occ("PHP","P") == "H"']}
    return mbpp.normalise(row, RowContext(mbpp.MBPP.name, "full", "train", 0))


def test_an_mbpp_training_prompt_shows_its_first_assert_and_so_the_function_name():
    problem = _mbpp_problem()
    prompt = training_prompt(load_config("mbpp").data.prompt_template, problem)
    first, *others = json.loads(problem.answer)["tests"]
    assert problem.prompt in prompt and first in prompt
    assert not any(test in prompt for test in others)  # graded, never shown (issue 41)
    # The benchmark prompt shows all three, with the same task text (one builder, not a copy).
    assert mbpp.benchmark_prompt_text(problem) in get_benchmark("mbpp").prompt(problem)
    assert mbpp.prompt_text(problem) in mbpp.benchmark_prompt_text(problem)


@pytest.mark.parametrize("config,stops", [
    ("gsm8k", ("\nQuestion:",)),           # the template's header: the model starts a new problem
    ("math", ("\nProblem:",)),
    ("mbpp", ("[DONE]",)),                 # the dataset's end marker
    ("mixed", ("\nUser:",)),
    ("tiny-arith", ()),                    # "{prompt}\n" has no header: arith rollouts are unchanged
])
def test_each_config_stops_its_first_dataset_where_a_completion_ends(config, stops):
    cfg = load_config(config)
    assert stop_strings(cfg.data.prompt_template, resolve(cfg.data.train[0].name).source) == stops


def test_mbpp_rollouts_stop_where_the_mbpp_benchmark_does():
    assert set(get_benchmark("mbpp").stop) <= set(stop_strings("{prompt}", mbpp.MBPP))


@pytest.fixture
def spaced_arith():
    """arith under another name whose completions end at a space ("#### 85" -> "####")."""
    arith = resolve("arith").source
    source = Source(name="arith-stop-at-space", verifier="math", stop=(" ",),
                    generate=lambda split: [replace(p, source="arith-stop-at-space") for p in arith.generate(split)])
    register_source(source)
    yield source.name
    unregister_source(source.name)


@pytest.mark.slow
def test_a_rollout_completion_is_cut_at_its_dataset_stop_string(ray_cluster, tiny_config, tmp_path, spaced_arith):
    from rlvr_core.grpo import train

    result = train(tiny_config(f"data.train=[{{name: {spaced_arith}, split: train}}]", "training.max_steps=1"),
                   run_dir=tmp_path / "run")
    rows = [json.loads(line) for line in (result.run_dir / "traces" / "rollouts.jsonl").read_text().splitlines()]
    assert rows and all(" " not in r["text"] for r in rows)
    assert sum(r["text"] == "####" and r["finish_reason"] == "stop" for r in rows) > len(rows) / 2
    settings = json.loads((result.run_dir / "traces" / "rollout_settings.json").read_text())
    assert settings["stop"] == {spaced_arith: [" "]} and "derive_seed(run.seed, t, p, s)" in settings["seeding"]
