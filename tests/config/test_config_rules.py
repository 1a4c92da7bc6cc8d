"""Every rule a config is checked against at load, one case each, with the line the user reads.

Each line names the file, the dotted field, the value and the fix; a rule
across sections is checked once every section is valid on its own.
"""

from __future__ import annotations

import re

import pytest

from rlvr_core.config import ConfigError, load_config

FILE = r"tiny-arith\.yaml: "


def problems(*overrides: str) -> list[str]:
    with pytest.raises(ConfigError) as caught:
        load_config("tiny-arith", list(overrides))
    return caught.value.problems


@pytest.mark.parametrize("overrides,line", [
    # run
    (["run.runs_dir=s3://bucket/runs"], r"run\.runs_dir = 's3://bucket/runs': is a URL \(s3://\), but run folders .* "
                                        r"must be on local disk .*Fix: set a local directory"),
    (["run.runs_dir=file:///tmp/runs"], r"run\.runs_dir = 'file:///tmp/runs': is a URL \(file://\)"),
    (['run.runs_dir="a\\0b"'], r"run\.runs_dir = 'a\\x00b': contains the control character '\\x00'\. Fix: remove it"),
    (["run.runs_dir=''"], r"run\.runs_dir = '': must not be empty\. Fix:"),
    ([f"run.seed={2**64}"], r"run\.seed = 18446744073709551616: must be <= 4294967295\. Fix: set run\.seed <= 4294967295"),
    (["run.seed=-1"], r"run\.seed = -1: must be >= 0"),
    (["run.name=" + "a" * 101], r"run\.name = 'a{60}\.\.\.' \(101 characters\): is too long \(at most 100 characters\)"),
    (["run.name='my run'"], r"run\.name = 'my run': does not match the pattern"),
    # storage
    (["storage.root=ftp://host/store"], r"storage\.root = 'ftp://host/store': uses the unsupported scheme ftp://\. "
                                        r"Fix: use a local path or s3://bucket/prefix"),
    (["storage.root=s3://"], r"storage\.root = 's3://': has no valid bucket name\. Fix: use s3://<bucket>/<prefix>"),
    (['storage.root="a\\0b"'], r"storage\.root = 'a\\x00b': contains the control character"),
    (["storage.endpoint_url=localhost:9000"], r"storage\.endpoint_url = 'localhost:9000': is not an http\(s\) URL"),
    (["storage.endpoint_url=http://127.0.0.1:9000"],
     r"storage\.endpoint_url = 'http://127\.0\.0\.1:9000': is set, but neither storage\.root nor data\.curriculum is "
     r"an s3:// URI, so it would be ignored\. Fix: remove storage\.endpoint_url"),
    # model
    (["model.name_or_path=gs://bucket/model"], r"model\.name_or_path = 'gs://bucket/model': uses the unsupported scheme gs://"),
    (["model.name_or_path=''"], r"model\.name_or_path = '': must not be empty"),
    # data
    (["data.train=[{name: arith, split: validation}]"],
     r"data\.train\.0\.split = 'validation': dataset 'arith' has no split 'validation'\. Fix: use one of \['train', 'test'\]"),
    (["data.train=[{name: 'arith:x'}]"], r"data\.train\.0\.name = 'arith:x': dataset 'arith' has no config 'x'\. Fix: drop ':x'"),
    (["data.train=[]"], r"data\.train = \[\]: must not be empty"),
    (["data.train=[{name: arith, weight: .inf}]"], r"data\.train\.0\.weight = inf: must be a finite number"),
    (["data.curriculum=s3://bucket"], r"data\.curriculum = 's3://bucket': names a bucket but no file in it"),
    (["data.prompt_template='Q: {prompt} {answer}'"],
     r"data\.prompt_template = 'Q: \{prompt\} \{answer\}': has placeholders other than \{prompt\}: \{answer\}\. "
     r"Fix: write literal braces as \{\{ and \}\}"),
    (["data.prompt_template='{prompt} \\boxed{}'"], r"data\.prompt_template = .*has placeholders other than \{prompt\}: \{\}\. Fix"),
    (["data.prompt_template='{prompt} {'"], r"data\.prompt_template = '\{prompt\} \{': is not a valid format string"),
    # training
    (["training.warmup_steps=500", "training.max_steps=100"],
     r"training\.warmup_steps = 500: is more than training\.max_steps = 100, so the learning rate never reaches its "
     r"peak\. Fix: set training\.warmup_steps <= 100 or raise training\.max_steps"),
    (["training.eval_dataset=gsm8k"], r"training\.eval_dataset = 'gsm8k': unknown dataset\. Fix: use one of \[.*'openai/gsm8k'"),
    (["training.eval_dataset=allenai/RLVR-IFeval"],
     r"training\.eval_split = 'test': dataset 'allenai/RLVR-IFeval' has no split 'test'\. Fix: use one of \['train'\]"),
    (["training.eval_split=validation"],
     r"training\.eval_split = 'validation': dataset 'arith' has no split 'validation' \(training\.eval_dataset is "
     r"unset, so the held-out set comes from data\.train\.0\)\. Fix: use one of \['train', 'test'\], set "
     r"training\.eval_dataset to a dataset with a held-out split, or set training\.eval_every: 0"),
    (["training.ray_address=not an address"], r"training\.ray_address = 'not an address': is not a Ray address"),
    (["training.ray_address=host:70000"], r"training\.ray_address = 'host:70000': is not a Ray address"),
    (["training.max_steps=true"], r"training\.max_steps = true: must be a number, not true/false"),
    (["training.max_steps=1.5"], r"training\.max_steps = 1\.5: must be a whole number, not a fraction"),
    (["training.max_steps=100000000"], r"training\.max_steps = 100000000: must be <= 10000000"),
    (["training.learning_rate=.nan"], r"training\.learning_rate = nan: must be a finite number"),
    (["training.rollout_workers=100000"], r"training\.rollout_workers = 100000: must be <= 256"),
    (["training.ray_num_cpus=1", "training.rollout_workers=2", "training.data_parallel=1"],
     r"training\.ray_num_cpus = 1: is below the 1\.5 CPUs that the trainer and 2 rollout actor\(s\) ask for \(0\.5 "
     r"each\), so they could not all start\. Fix: set training\.ray_num_cpus >= 1\.5"),
    (["training.ray_num_cpus=1", "training.data_parallel=3"],
     r"training\.ray_num_cpus = 1: is below the 1\.5 CPUs that the 3 colocated trainer replica\(s\) ask for \(0\.5 "
     r"each\), so they could not all start\. Fix: set training\.ray_num_cpus >= 1\.5, or lower training\.actor_cpus or "
     r"training\.data_parallel"),
    (["training.colocate=false"],
     r"training\.data_parallel = 2: needs the colocated layout \(generation_backend hf, rollout_workers 1, colocate not "
     r"false\): each replica samples with its own weights\. Fix: set training\.data_parallel: 1, or use the colocated layout"),
    (["training.device=cuda"],
     r"training\.data_parallel = 2: runs on CPU only \(gradients are summed over gloo\); data parallelism across GPUs "
     r"\(NCCL\) is not implemented\. Fix: set training\.data_parallel: 1 on GPU, or training\.device: cpu"),
    # evaluation
    (["evaluation.benchmarks=[arith, arith]"], r"evaluation\.benchmarks = \['arith', 'arith'\]: lists \['arith'\] more than once"),
    (["evaluation.benchmarks=[aritm]"], r"evaluation\.benchmarks = \['aritm'\]: unknown benchmark\(s\) \['aritm'\]\. Fix: use names from"),
    (["evaluation.baseline_models=['']"], r"evaluation\.baseline_models\.0 = '': must not be empty"),
    (["evaluation.batch_size=100000"], r"evaluation\.batch_size = 100000: must be <= 8192"),
])
def test_rule_is_checked_at_load_with_one_line(overrides: list[str], line: str) -> None:
    found = problems(*overrides)
    assert len(found) == 1 and "\n" not in found[0], found
    assert re.fullmatch(rf".*{FILE}{line}.*", found[0]), found[0]


def test_a_rule_broken_twice_in_one_section_gives_two_lines() -> None:
    found = problems("training.warmup_steps=500", "training.max_steps=100", "training.sync_every=3")
    assert [line.split(": ")[1] for line in found] == ["training", "training.warmup_steps = 500"]


def test_allowed_values_still_load() -> None:
    config = load_config("tiny-arith", [
        "run.seed=4294967295", "training.warmup_steps=300", "storage.root=s3://bucket/prefix",
        "storage.endpoint_url=http://127.0.0.1:9000", "data.prompt_template='{prompt} \\boxed{{}}'",
        "training.ray_address=ray://10.0.0.1:10001", "training.eval_dataset=google/IFEval", "training.eval_split=train",
        "run.runs_dir=/tmp/runs", "model.name_or_path=file:///models/x", "data.curriculum=s3://bucket/order.json"])
    assert config.run.seed == 2**32 - 1 and config.training.warmup_steps == config.training.max_steps


def test_eval_split_is_not_checked_when_heldout_accuracy_is_off() -> None:
    assert load_config("tiny-arith", ["training.eval_every=0", "training.eval_split=nope"]).training.eval_every == 0


def test_more_than_20_problems_are_cut_to_20_lines_the_last_counting_the_rest() -> None:
    found = problems("training={" + ", ".join(f"typo{i}: {i}" for i in range(30)) + "}")
    assert len(found) == 20 and all("unknown field" in line for line in found[:19])
    assert found[-1].endswith("tiny-arith.yaml: 11 more problems not shown. Fix: correct the ones above and validate again")
